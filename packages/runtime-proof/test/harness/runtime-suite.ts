/**
 * The suite of every promise for one runtime, against a simulator on 127.0.0.1 of its own, so each
 * runtime's requests stand alone in the simulator's log. `runtimes.test.ts` runs it for the runtimes
 * that come from npm, `chromium.test.ts` for the browser (a system program that may be absent).
 */
import { createHash } from "node:crypto";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillPayload } from "../../scenarios/payload.ts";
import type { Runtime } from "./bundle.ts";
import { type CapturedDelivery, captureDelivery, DELIVERY_METADATA } from "./deliveries.ts";
import { type ChromiumSession, type Outcome, runScenario, startChromium } from "./runners.ts";
import { endpointsOf, startProofSimulator, UPLOAD_CHUNK } from "./simulator.ts";

const UPLOAD_SIZE = 60 * 1024 * 1024;

/** A span as the tracing scenario reports it. */
interface TracedSpanOut {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
  status: number;
  scope: string;
}

let expectedSha256: string | undefined;
/** SHA-256 of the 60 MiB payload, computed here from the same generator the scenarios use. */
function payloadSha256(): string {
  if (expectedSha256) return expectedSha256;
  const hash = createHash("sha256");
  const piece = new Uint8Array(1024 * 1024);
  for (let offset = 0; offset < UPLOAD_SIZE; offset += piece.length) {
    fillPayload(piece, offset);
    hash.update(piece);
  }
  expectedSha256 = hash.digest("hex");
  return expectedSha256;
}

/** The exact Content-Range of every chunk of an upload of `size` bytes in chunks of `chunk`. */
function expectedRanges(size: number, chunk: number): string[] {
  const ranges: string[] = [];
  for (let start = 0; start < size; start += chunk) {
    ranges.push(`bytes ${start}-${Math.min(start + chunk, size) - 1}/${size}`);
  }
  return ranges;
}

/** A scenario's output, checked to come from `runtime`; a failed outcome throws with its description. */
export function output(outcome: Outcome, runtime: Runtime): Record<string, unknown> {
  if (!outcome.ok)
    throw new Error(`scenario failed in ${runtime}: ${JSON.stringify(outcome.error, null, 2)}`);
  // The scenario reports the runtime it saw, so a runner that silently fell back to Node cannot pass.
  expect(outcome.output["runtime"]).toBe(runtime.startsWith("node") ? "node" : runtime);
  return outcome.output;
}

/**
 * Registers the suite of `runtime` (a `describe` named after it). `skip` marks every test skipped, for
 * a runtime whose program is absent outside CI (the caller has said so loudly).
 */
export function describeRuntime(runtime: Runtime, options: { skip?: boolean } = {}): void {
  describe(runtime, () => {
    let sim: Simulator;
    let browser: ChromiumSession | undefined;
    const skipBrowser = options.skip === true;

    beforeAll(async () => {
      sim = await startProofSimulator();
      if (runtime === "chromium" && !skipBrowser) browser = await startChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await sim?.close();
    });

    const run = (scenario: string, extra: Record<string, unknown> = {}) =>
      runScenario(
        runtime,
        scenario,
        { sim: endpointsOf(sim), ...extra },
        browser ? { chromium: browser } : {},
      );

    it("errors + http: an authenticated request, and 404/401/429 mapped to typed errors", async (ctx) => {
      if (skipBrowser) ctx.skip();
      const out = output(await run("smoke"), runtime);
      expect(out["channelIds"]).toEqual(sim.reference.channels.map((c) => c.id));
      expect(out["channelsCorrelationId"]).toBe("proof-channels");
      expect(out["notFound"]).toMatchObject({
        typed: true,
        name: "NotFoundError",
        code: "NOT_FOUND",
        status: 404,
      });
      expect(out["unauthorized"]).toMatchObject({ typed: true, code: "UNAUTHORIZED", status: 401 });
      expect(out["mapped"]).toMatchObject({
        typed: true,
        code: "RATE_LIMITED",
        status: 429,
        retryAfterMs: 3000,
      });
      // The simulator saw the request, authenticated, with the caller's correlation id.
      const seen = sim.control.requests().find((r) => r.correlationId === "proof-channels");
      expect(seen).toMatchObject({ method: "GET", path: "/v1/channels", status: 200 });
      expect(seen?.headers["x-external-user-id"]).toBe(sim.externalUserId);
      const notFound = out["notFound"] as { correlationId: string };
      expect(
        sim.control.requests().some((r) => r.correlationId === notFound.correlationId && r.status === 404),
      ).toBe(true);
    });

    it.for(["stream", "blob"])(
      "upload-chunker: 60 MiB from a %s, in chunks of the service's maxChunkSize, with the right SHA-256 at the server",
      async (source, ctx) => {
        if (skipBrowser) ctx.skip();
        const out = output(await run("upload", { size: UPLOAD_SIZE, source }), runtime);
        expect(out).toMatchObject({
          status: "completed",
          fileSize: UPLOAD_SIZE,
          retries: 0,
          progressWentBackwards: false,
        });
        const uploadId = out["uploadId"] as string;
        const stored = sim.control.upload(uploadId);
        expect(stored).toMatchObject({ status: "completed", size: UPLOAD_SIZE, sha256: payloadSha256() });
        const puts = sim.control
          .requests()
          .filter((r) => r.method === "PUT" && r.path === `/v1/uploads/${uploadId}`);
        expect(puts.map((r) => r.headers["content-range"])).toEqual(
          expectedRanges(UPLOAD_SIZE, UPLOAD_CHUNK),
        );
        expect(puts.every((r) => r.status !== null && r.status < 300)).toBe(true);
        // Chunk bodies stream where the chunker documents it (all but browsers); progress then comes at
        // least once per MiB, else once per chunk; it ends with every byte acknowledged.
        const documented = runtime !== "chromium";
        expect(out["streamed"]).toBe(documented);
        const chunks = expectedRanges(UPLOAD_SIZE, UPLOAD_CHUNK).length;
        expect(out["progressReports"] as number).toBeGreaterThanOrEqual(out["streamed"] ? 60 : chunks);
        expect(out["lastProgress"]).toMatchObject({
          bytesAcknowledged: UPLOAD_SIZE,
          totalBytes: UPLOAD_SIZE,
        });
      },
    );

    describe("webhook-verify", () => {
      let delivery: CapturedDelivery;
      beforeAll(async () => {
        if (!skipBrowser) delivery = await captureDelivery(sim);
      });

      it("verifies a real simulator delivery (bytes and Request), refuses its replay and any tampering; the Fetch entry's handler answers it", async (ctx) => {
        if (skipBrowser) ctx.skip();
        const out = output(await run("webhook", { delivery }), runtime);
        const event = out["event"] as { type: string; data: { metadata?: unknown; promotionId?: string } };
        expect(event.type).toBe("evaluation-completed");
        expect(event.data.metadata).toEqual(DELIVERY_METADATA);
        expect(out["requestEvent"]).toEqual({
          type: "evaluation-completed",
          promotionId: event.data.promotionId,
        });
        expect(out["replay"]).toMatchObject({
          accepted: false,
          name: "WebhookVerificationError",
          reason: "replayed",
        });
        expect(out["bodyChanged"]).toMatchObject({ accepted: false, name: "WebhookVerificationError" });
        expect(out["signatureChanged"]).toMatchObject({ accepted: false, name: "WebhookVerificationError" });
        // The Fetch entry's handler, as a Worker runs it: the delivery, its copy, a tampered copy.
        expect(out["fetchEntry"]).toEqual([
          [200, { received: true }],
          [200, { received: true, duplicate: true }],
          [400, { error: "invalid webhook" }],
        ]);
        // The "node" export condition gives node:crypto where the runtime resolves it (Node, and Deno and
        // Bun, which both honour "node"); a Worker or browser bundle gets Web Crypto.
        expect(out["cryptoBackend"]).toBe(runtime === "workerd" || runtime === "chromium" ? "web" : "node");
      });
    });

    it("OpenTelemetry: providers passed in record the operation, its CLIENT span and the metrics; traceparent reaches the service", async (ctx) => {
      if (skipBrowser) ctx.skip();
      const out = output(await run("tracing"), runtime);
      const spans = out["spans"] as TracedSpanOut[];
      const operation = spans.find((span) => span.name === "promotions.create");
      const post = spans.find((span) => span.name === "POST /v1/promotions");
      expect(operation).toMatchObject({
        kind: 0,
        parentSpanId: null,
        scope: "@promo-review/promotions-core",
        attributes: { "promo_review.correlation_id": out["correlationId"] },
      });
      expect(post).toMatchObject({
        kind: 2,
        traceId: operation?.traceId,
        parentSpanId: operation?.spanId,
        attributes: {
          "http.request.method": "POST",
          "url.template": "/v1/promotions",
          "http.response.status_code": 201,
          "server.address": "127.0.0.1",
        },
      });
      // The service received the CLIENT span's context, sampled.
      const seen = sim.control
        .requests()
        .find(
          (r) =>
            r.method === "POST" && r.path === "/v1/promotions" && r.correlationId === out["correlationId"],
        );
      expect(seen?.headers["traceparent"]).toBe(`00-${post?.traceId}-${post?.spanId}-01`);
      expect(out["metrics"]).toContainEqual(
        expect.objectContaining({ name: "http.client.request.duration", unit: "s" }),
      );
      expect(JSON.stringify(out)).not.toContain(sim.apiKey);
    });

    it("sdk facade: creates a promotion from text and reads its decision", async (ctx) => {
      if (skipBrowser) ctx.skip();
      const outcome = await run("facade");
      const out = output(outcome, runtime);
      expect(out).toMatchObject({ version: 1 });
      expect([
        "approved",
        "rejected",
        "changes_requested",
        "conditionally_approved",
        "in_review",
        "pending",
        "none",
      ]).toContain(out["decision"]);
      // The simulator holds the promotion, created over the wire with the facade's correlation id.
      const log = sim.control.requests();
      const create = log.find(
        (r) =>
          r.method === "POST" &&
          r.path === "/v1/promotions" &&
          r.correlationId === out["createdCorrelationId"],
      );
      expect(create).toMatchObject({ status: 201 });
      const decision = log.find(
        (r) =>
          r.method === "GET" &&
          r.path === `/v1/promotions/${out["promotionId"]}/versions/${out["versionId"]}/decision`,
      );
      expect(decision).toMatchObject({ status: 200, correlationId: out["decisionCorrelationId"] });
    });
  });
}
