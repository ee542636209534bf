/**
 * Issue 26: no span, event or metric holds a secret, a body or a header value. The facade runs with
 * recording providers against a service that echoes the key into every answer (testing/echoing-service.ts)
 * and against the simulator, and every string the providers recorded (span names, attributes, event
 * attributes, status messages, metric attributes) is read for each configured secret.
 */
import { openTelemetry } from "@promo-review/opentelemetry";
import { startSimulator } from "@promo-review/simulator";
import { sign } from "@promo-review/webhook-verify";
import { afterEach, describe, expect, it } from "vitest";
import { useEchoingService } from "../../../testing/echoing-service.ts";
import { recordingTelemetry } from "../../../testing/otel.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import { createClient } from "./index.js";

const UUID = "7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6";
const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const echo = useEchoingService();
const sim = useSimulator(startSimulator, {});
let recording = recordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = recordingTelemetry();
});

/** The strings recorded that contain `secret`, for a failure message that says where. */
async function showing(secret: string): Promise<string[]> {
  return (await recording.everyString()).filter((text) => text.includes(secret));
}

describe("a service that echoes the key into every answer: no span, event or metric shows it", () => {
  for (const apiKey of ["pr_live_EchoedKey_0123456789abcdef", "Zq", "§"]) {
    it(`key of ${apiKey.length} characters, across reference, promotions, uploads, links and webhooks`, async () => {
      const { tracerProvider, meterProvider } = recording;
      const client = createClient({
        apiKey,
        externalUserId: "u1",
        baseUrl: echo(),
        filesUrl: `${echo()}/files`,
        webhookSecret: WEBHOOK_SECRET,
        rateBudget: false,
        env: {},
        telemetry: openTelemetry({ tracerProvider, meterProvider, propagateTraceContext: true }),
      });
      await client.reference.channels();
      await client.reference.jurisdictions().catch(() => undefined);
      await client.promotions.get(UUID).catch(() => undefined);
      await client.uploads.status(UUID).catch(() => undefined);
      await client.uploads
        .upload(new TextEncoder().encode(`bytes ${apiKey}`), { fileName: "a.txt", contentType: "text/plain" })
        .catch(() => undefined);
      await client.links.capture(`https://example.test/page?token=${apiKey}`).catch(() => undefined);
      // A forged delivery whose body and signature carry the secrets.
      const body = JSON.stringify({ type: "evaluation-completed", note: `${apiKey} ${WEBHOOK_SECRET}` });
      const signed = await sign({ webhookSecret: WEBHOOK_SECRET, body: `${body} ` });
      // The id is the one header value a span keeps: a sender that puts the secret in it gets it redacted.
      const headers = { ...signed, "webhook-id": `msg_${WEBHOOK_SECRET}` };
      await client.webhooks.verify({ headers, body }).catch(() => undefined);

      expect(recording.spans().length).toBeGreaterThanOrEqual(8);
      expect(recording.spans().filter((span) => span.kind === 2).length).toBeGreaterThanOrEqual(5);
      expect(await showing(apiKey)).toEqual([]);
      expect(await showing(WEBHOOK_SECRET)).toEqual([]);
      expect(await showing(headers["webhook-signature"] ?? "missing")).toEqual([]);
      expect(await showing(body)).toEqual([]);
    });
  }
});

describe("the simulator, end to end: every operation's telemetry is free of the key and the webhook secret", () => {
  it("create, upload, link capture, decision, and a genuine webhook delivery", async () => {
    const { tracerProvider, meterProvider } = recording;
    const client = clientFor(sim(), {
      telemetry: openTelemetry({ tracerProvider, meterProvider, propagateTraceContext: true }),
    });
    const upload = await client.uploads.upload(new Uint8Array(300 * 1024).fill(7), {
      fileName: "creative.pdf",
      contentType: "application/pdf",
    });
    const created = await client.promotions.create({
      ...promotionFields(sim()),
      fileFormat: "pdf",
      uploadIds: [upload.uploadId],
    });
    await client.promotions.decision(created.promotionId, created.versionId);
    await client.links.capture("https://example.test/landing");
    const body = JSON.stringify({
      type: "evaluation-completed",
      timestamp: new Date().toISOString(),
      data: {
        evaluationId: UUID,
        promotionId: created.promotionId,
        versionId: created.versionId,
        status: "completed",
      },
    });
    const headers = await sign({ webhookSecret: sim().webhookSecret, body });
    await client.webhooks.verify({ headers, body }).catch(() => undefined);

    const names = new Set(recording.spans().map((span) => span.name));
    expect([...names]).toEqual(
      expect.arrayContaining(["promotions.create", "uploads.upload", "links.capture"]),
    );
    for (const secret of [
      sim().apiKey,
      sim().webhookSecret,
      headers["webhook-signature"] ?? "missing",
      body,
    ]) {
      expect(await showing(secret)).toEqual([]);
    }
  });
});
