/**
 * `@promo-review/webhook-verify`: a delivery the simulator really sent (captured by the test, passed
 * here byte for byte) verifies as bytes and as a Fetch `Request`; the same delivery again is refused as
 * a replay; one changed byte of the body, or of the signature, is refused. The Fetch entry
 * (`@promo-review/webhook-verify/fetch`), as a Worker uses it: its handler answers the delivery 200, its
 * copy 200 as a duplicate, and a tampered copy 400.
 */
import { createWebhookVerifier, cryptoBackend } from "@promo-review/webhook-verify";
import { createWebhookVerifier as createFetchVerifier } from "@promo-review/webhook-verify/fetch";
import { describeError, runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

interface CapturedDelivery {
  headers: Record<string, string>;
  bodyBase64: string;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function outcome(attempt: () => Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await attempt();
    return { accepted: true };
  } catch (error) {
    return { accepted: false, ...describeError(error) };
  }
}

export async function run({ sim, delivery }: ScenarioInput): Promise<ScenarioOutput> {
  const { headers, bodyBase64 } = delivery as CapturedDelivery;
  const body = decodeBase64(bodyBase64);
  const webhookSecret = [sim.webhookSecret];

  const verifier = createWebhookVerifier({ webhookSecret });
  const event = await verifier.verify({ headers, body });
  const replay = await outcome(() => verifier.verify({ headers, body }));

  // A Fetch Request, as a Worker or Deno.serve handler receives it, read by a fresh verifier.
  const asRequest = await createWebhookVerifier({ webhookSecret }).verify(
    new Request("http://127.0.0.1/webhooks", { method: "POST", headers, body: body as BodyInit }),
  );

  const tamperedBody = body.slice();
  const middle = tamperedBody.length >> 1;
  tamperedBody[middle] = tamperedBody[middle]! ^ 0x01;
  const bodyChanged = await outcome(() =>
    createWebhookVerifier({ webhookSecret }).verify({ headers, body: tamperedBody }),
  );

  const signature = headers["webhook-signature"] ?? "";
  const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.slice(-1);
  const signatureChanged = await outcome(() =>
    createWebhookVerifier({ webhookSecret }).verify({
      headers: { ...headers, "webhook-signature": flipped },
      body,
    }),
  );

  const handle = createFetchVerifier({ webhookSecret }).handler();
  const post = (sent: Uint8Array) =>
    handle(new Request("http://127.0.0.1/webhooks", { method: "POST", headers, body: sent as BodyInit }));
  const answers: unknown[] = [];
  for (const sent of [body, body, tamperedBody]) {
    const response = await post(sent);
    answers.push([response.status, await response.json()]);
  }

  return {
    runtime: runtimeFingerprint(),
    fetchEntry: answers,
    cryptoBackend,
    event: { type: event.type, data: event.data },
    requestEvent: {
      type: asRequest.type,
      promotionId: (asRequest.data as { promotionId?: string }).promotionId,
    },
    replay,
    bodyChanged,
    signatureChanged,
  };
}
