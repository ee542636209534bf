// The signature-only entry (`@promo-review/webhook-verify/signature`): the same checks as the full
// verifier on real simulator signatures, nothing parsed, the id claimed only when a store is given.
import { isPromoReviewError, PromoReviewError, WebhookVerificationError } from "@promo-review/errors";
import { signWebhook } from "@promo-review/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ed25519Pair, NOW_MS, NOW_S, OLD_SECRET, SECRET } from "../test/support/fixtures.js";
import { createWebhookVerifier } from "./index.js";
import { createMemoryReplayStore } from "./replay-store.js";
import { createSignatureVerifier } from "./signature.js";

const ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
const BODY = '{"type":"evaluation-completed","data":{"status":"completed"}}';

/** A delivery signed by the simulator, as the service sends it. */
function delivery(
  options: { webhookSecret?: string[]; id?: string; timestamp?: number; body?: string } = {},
) {
  const { webhookSecret: secrets = [SECRET], id = ID, timestamp = NOW_S, body = BODY } = options;
  return {
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(secrets, id, timestamp, body),
    },
    body,
  };
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WebhookVerificationError))
    throw new Error(`expected a refusal, got ${String(error)}`);
  return error.reason;
}

describe("a signed delivery is accepted and returned raw, not parsed", () => {
  it("resolves the id, the timestamp and the body exactly as received", async () => {
    const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    const bytes = new TextEncoder().encode(BODY);
    const fromText = await verifier.verify(delivery());
    expect(fromText).toEqual({ id: ID, timestamp: NOW_S, body: BODY });
    const fromBytes = await verifier.verify({ ...delivery(), body: bytes });
    expect(fromBytes.body).toBe(bytes);
  });

  it("reads a Fetch Request", async () => {
    const { headers, body } = delivery();
    const request = new Request("http://127.0.0.1/webhooks", { method: "POST", headers, body });
    const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    const verified = await verifier.verify(request);
    expect(new TextDecoder().decode(verified.body as Uint8Array)).toBe(BODY);
  });

  it("agrees with the full verifier's verifySignature on the same delivery", async () => {
    const signatureOnly = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    const full = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    expect(await signatureOnly.verify(delivery())).toEqual(await full.verifySignature(delivery()));
  });
});

describe("rotation: several signatures and several secrets", () => {
  it("accepts when any configured secret matches any signature, whether the header is one line or two joined", async () => {
    const rotated = delivery({ webhookSecret: [OLD_SECRET, SECRET] });
    const newOnly = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    const both = createSignatureVerifier({ webhookSecret: [OLD_SECRET, SECRET], now: () => NOW_MS });
    await expect(newOnly.verify(rotated)).resolves.toMatchObject({ id: ID });
    await expect(both.verify(delivery({ webhookSecret: [OLD_SECRET] }))).resolves.toMatchObject({ id: ID });
    // Two header lines as Node and Headers.append join them.
    const [first, second] = rotated.headers["webhook-signature"].split(" ");
    const joined = {
      ...rotated,
      headers: { ...rotated.headers, "webhook-signature": `${first}, ${second}` },
    };
    await expect(newOnly.verify(joined)).resolves.toMatchObject({ id: ID });
    const array = { ...rotated, headers: { ...rotated.headers, "webhook-signature": [first!, second!] } };
    await expect(newOnly.verify(array)).resolves.toMatchObject({ id: ID });
  });

  it("refuses a delivery signed only with a secret it does not hold", async () => {
    const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    expect(await reasonOf(verifier.verify(delivery({ webhookSecret: [OLD_SECRET] })))).toBe("bad_signature");
  });
});

describe("timestamp tolerance", () => {
  it("accepts at the edge of the tolerance and refuses one second beyond, either way", async () => {
    const verifier = createSignatureVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      toleranceSeconds: 60,
    });
    await expect(verifier.verify(delivery({ timestamp: NOW_S - 60 }))).resolves.toBeDefined();
    await expect(verifier.verify(delivery({ timestamp: NOW_S + 60 }))).resolves.toBeDefined();
    expect(await reasonOf(verifier.verify(delivery({ timestamp: NOW_S - 61 })))).toBe("timestamp_too_old");
    expect(await reasonOf(verifier.verify(delivery({ timestamp: NOW_S + 61 })))).toBe("timestamp_too_new");
  });
});

describe("the id is claimed only through a replay store", () => {
  it("without a store, the same delivery verifies twice (the caller keeps idempotency)", async () => {
    const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
    await verifier.verify(delivery());
    await expect(verifier.verify(delivery())).resolves.toMatchObject({ id: ID });
  });

  it("with a store, a second delivery of one id within the window is refused as replayed, after the window accepted", async () => {
    let now = NOW_MS;
    const replayStore = createMemoryReplayStore({ now: () => now });
    const verifier = createSignatureVerifier({
      webhookSecret: SECRET,
      now: () => now,
      replayStore,
      replayWindowSeconds: 10,
    });
    await verifier.verify(delivery());
    expect(await reasonOf(verifier.verify(delivery()))).toBe("replayed");
    now += 10_000;
    await expect(verifier.verify(delivery())).resolves.toMatchObject({ id: ID });
  });

  it("a forged delivery is never claimed: the genuine one after it is accepted", async () => {
    const replayStore = createMemoryReplayStore({ now: () => NOW_MS });
    const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore });
    expect(await reasonOf(verifier.verify(delivery({ webhookSecret: [OLD_SECRET] })))).toBe("bad_signature");
    await expect(verifier.verify(delivery())).resolves.toMatchObject({ id: ID });
  });

  it("a store that fails is REPLAY_STORE_FAILED, retryable, and never a pass", async () => {
    const verifier = createSignatureVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      replayStore: {
        claim: () => Promise.reject(new Error("connection refused")),
        release: async () => {},
      },
    });
    const error = await verifier.verify(delivery()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(isPromoReviewError(error) && error.code).toBe("REPLAY_STORE_FAILED");
    expect(isPromoReviewError(error) && error.retryable).toBe(true);
  });
});

describe("secrets are read when the verifier is made", () => {
  it("refuses an Ed25519 key (v1a needs the full verifier) and a malformed whsec_", () => {
    const make = (webhookSecret: string) => () => createSignatureVerifier({ webhookSecret });
    expect(make(ed25519Pair().publicKey)).toThrow(/createWebhookVerifier/);
    expect(make(`${SECRET}\n`)).toThrow(/whitespace/);
    expect(make("whsec_***")).toThrow(WebhookVerificationError);
  });
});

describe("tampering with any part of a signed delivery is refused", () => {
  const verifier = createSignatureVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
  const part = fc.constantFrom("webhook-id", "webhook-timestamp", "body");

  it("a changed id, timestamp or body byte is never accepted", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 200 }),
        part,
        fc.nat(),
        fc.integer({ min: 1, max: 9 }),
        async (body, which, index, delta) => {
          const signed = delivery({ body });
          const change = (text: string) => {
            const i = index % text.length;
            const digit = which === "webhook-timestamp";
            const code = text.charCodeAt(i);
            const next = digit ? 48 + ((code - 48 + delta) % 10) : code ^ delta;
            return text.slice(0, i) + String.fromCharCode(next) + text.slice(i + 1);
          };
          const tampered =
            which === "body"
              ? { ...signed, body: change(signed.body) }
              : { ...signed, headers: { ...signed.headers, [which]: change(signed.headers[which]) } };
          const reason = await reasonOf(verifier.verify(tampered));
          // A changed timestamp may also be unreadable or outside the tolerance; never accepted.
          expect(["bad_signature", "malformed_headers", "timestamp_too_old", "timestamp_too_new"]).toContain(
            reason,
          );
          if (which !== "webhook-timestamp") expect(reason).toBe("bad_signature");
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a changed signature character is never accepted", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 30 }), async (index, delta) => {
        const signed = delivery();
        const header = signed.headers["webhook-signature"];
        // Past "v1,": the base64 value.
        const i = 3 + (index % (header.length - 3));
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const at = alphabet.indexOf(header[i]!);
        const swapped = at < 0 ? "A" : alphabet[(at + delta) % 64]!;
        if (swapped === header[i]) return;
        const forged = header.slice(0, i) + swapped + header.slice(i + 1);
        const tampered = { ...signed, headers: { ...signed.headers, "webhook-signature": forged } };
        expect(await reasonOf(verifier.verify(tampered))).toBe("bad_signature");
      }),
      { numRuns: 150 },
    );
  });
});
