/**
 * OpenTelemetry through the facade: `createClient({ telemetry: openTelemetry({ tracerProvider,
 * meterProvider, propagateTraceContext }) })` reaches both HTTP clients, the budget it makes and the webhook verifier;
 * each flow is an operation span with the package operations as its children. Real HTTP against the
 * simulator, recorded by OpenTelemetry's own SDK.
 */
import { trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { type OpenTelemetryOptions, openTelemetry } from "@promo-review/opentelemetry";
import { startSimulator } from "@promo-review/simulator";
import { sign } from "@promo-review/webhook-verify";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { insideActiveSpan, recordingTelemetry } from "../../../testing/otel.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import { type ClientConfig, ValidationError } from "./index.js";

const sim = useSimulator(startSimulator, {
  seed: 26,
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
  uploadProcessingDelayMs: 0,
  linkImportDelayMs: 100,
  evaluationDelayMs: 150,
});
const otel = recordingTelemetry();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

/** A client of the simulator reporting to the recording providers through the adapter. */
const traced = (
  config: ClientConfig = {},
  adapter: Pick<OpenTelemetryOptions, "propagateTraceContext"> = {},
) =>
  clientFor(sim(), {
    telemetry: openTelemetry({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      ...adapter,
    }),
    ...config,
  });

function only(name: string): ReadableSpan {
  const spans = otel.spansNamed(name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
}

/** The children of `parent`, in the order they started. */
const childrenInOrder = (parent: ReadableSpan) => otel.childrenOf(parent).sort(byStart);
const namesUnder = (parent: ReadableSpan) => childrenInOrder(parent).map((span) => span.name);

/** The API key and the webhook secret are absent from every span, event and metric. */
async function expectNoSecret() {
  const strings = await otel.everyString();
  expect(strings.length).toBeGreaterThan(0);
  for (const secret of [sim().apiKey, sim().webhookSecret])
    expect(strings.filter((s) => s.includes(secret))).toEqual([]);
}

/**
 * Spans in the order they started. A span's start is read from `Date.now()` (whole milliseconds), so
 * two steps in one millisecond tie: the one that ended first (steps run one after another) came first.
 */
const byStart = (a: ReadableSpan, b: ReadableSpan) => {
  const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
  return ms(a.startTime) - ms(b.startTime) || ms(a.endTime) - ms(b.endTime);
};

describe("each flow is an operation span under the caller's, the package operations its children", () => {
  it("createFromText: createFromText > promotions.create > POST /v1/promotions", async () => {
    const client = traced();
    const { caller, created } = await insideActiveSpan(otel.tracerProvider, "caller", async (caller) => ({
      caller,
      created: await client.flows.createFromText("Save 5%. Capital at risk.", {
        promotion: promotionFields(sim()),
      }),
    }));
    const flow = only("createFromText");
    expect(flow.kind).toBe(INTERNAL);
    expect(flow.instrumentationScope.name).toBe("@promo-review/sdk");
    expect(flow.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    // The flow's result is the creation's: its correlation id; the ids are on the creation's span.
    expect(flow.attributes).toEqual({ "promo_review.correlation_id": created.correlationId });
    expect(namesUnder(flow)).toEqual(["promotions.create"]);
    const create = only("promotions.create");
    expect(create.instrumentationScope.name).toBe("@promo-review/promotions-core");
    expect(create.attributes).toEqual({
      "promo_review.promotion_id": created.promotionId,
      "promo_review.version_id": created.versionId,
      "promo_review.correlation_id": created.correlationId,
    });
    expect(otel.childrenOf(create).map((span) => [span.name, span.kind])).toEqual([
      ["POST /v1/promotions", CLIENT],
    ]);
    await expectNoSecret();
  });

  it("createFromLink: the capture (with its polls) and the creation are children of the flow", async () => {
    const client = traced();
    const { promotion } = await client.flows.createFromLink(
      "https://docs.google.com/document/d/1AbCdEf/edit",
      {
        promotion: promotionFields(sim()),
      },
    );
    const flow = only("createFromLink");
    expect(namesUnder(flow)).toEqual(["links.capture", "promotions.create"]);
    expect(only("promotions.create").attributes["promo_review.promotion_id"]).toBe(promotion.promotionId);
    const capture = only("links.capture");
    const [post, ...polls] = namesUnder(capture);
    expect(post).toBe("POST /v1/links");
    expect(polls.length).toBeGreaterThan(0);
    expect(new Set(polls)).toEqual(new Set(["GET"]));
    expect(capture.events.filter((event) => event.name === "promo_review.link.poll")).toHaveLength(
      polls.length,
    );
  });

  it("submitLatestAndDecide: promotions.submitLatest (get, submit) then promotions.decision", async () => {
    const client = traced();
    const created = await client.promotions.create({
      ...promotionFields(sim()),
      fileFormat: "text",
      content: "Save 5%. Capital at risk.",
    });
    otel.reset();
    await client.flows.submitLatestAndDecide(created.promotionId);
    const flow = only("submitLatestAndDecide");
    expect(flow.attributes).toEqual({});
    expect(only("promotions.submitLatest").attributes).toMatchObject({
      "promo_review.promotion_id": created.promotionId,
      "promo_review.version_id": created.versionId,
    });
    expect(namesUnder(flow)).toEqual(["promotions.submitLatest", "promotions.decision"]);
    expect(namesUnder(only("promotions.submitLatest"))).toEqual(["promotions.get", "promotions.submit"]);
    expect(namesUnder(only("promotions.decision"))).toEqual([
      "GET /v1/promotions/{promotionId}/versions/{versionId}/decision",
    ]);
  });

  it("createFromFile: the upload and the creation are the flow's children; the file service's requests are traced too", async () => {
    const client = traced();
    const pdf = new Blob(["%PDF-1.4 spring flyer"], { type: "application/pdf" });
    await client.flows.createFromFile(pdf, { fileName: "flyer.pdf", promotion: promotionFields(sim()) });
    const flow = only("createFromFile");
    expect(namesUnder(flow)).toEqual(["uploads.upload", "promotions.create"]);
    expect(namesUnder(only("uploads.upload"))[0]).toBe("POST /v1/uploads");
    const filesPort = Number(new URL(sim().filesUrl).port);
    const fileService = otel.spans().filter((span) => span.attributes["server.port"] === filesPort);
    expect(fileService.length).toBeGreaterThan(0);
    expect(fileService.every((span) => span.kind === CLIENT)).toBe(true);
  });
});

describe("a 409 upload_not_ready inside promotions.create: the wait on the file service is its child", () => {
  it("promotions.create > uploads.waitForCompletion, with the promo_review.upload_wait event and both POSTs", async () => {
    const client = traced();
    await sim().control.setDelays({ uploadProcessingDelayMs: 300 });
    try {
      const pdf = new Blob(["%PDF-1.4 spring flyer"], { type: "application/pdf" });
      const upload = await client.uploads.upload(pdf, { fileName: "flyer.pdf", waitForCompletion: false });
      otel.reset();
      await client.promotions.create({
        ...promotionFields(sim()),
        fileFormat: "pdf",
        uploadIds: [upload.uploadId],
      });
    } finally {
      await sim().control.setDelays({ uploadProcessingDelayMs: 0 });
    }
    const create = only("promotions.create");
    expect(namesUnder(create)).toEqual([
      "POST /v1/promotions",
      "uploads.waitForCompletion",
      "POST /v1/promotions",
    ]);
    expect(create.events.map((event) => event.name)).toEqual(["promo_review.upload_wait"]);
    expect(only("uploads.waitForCompletion").attributes["promo_review.upload_id"]).toBeDefined();
  });
});

describe("evaluateAndWait: one operation span; the read of the latest version, the trigger and every poll under it", () => {
  it("polls (no webhook arrives): each read a promotions.evaluation child and a promo_review.evaluation.poll event", async () => {
    const client = traced();
    const created = await client.flows.createFromText("Guaranteed 12% returns!", {
      promotion: promotionFields(sim()),
    });
    otel.reset();
    const outcome = await client.flows.evaluateAndWait(created.promotionId, {
      pollAfterMs: 0,
      pollIntervalMs: 40,
    });
    expect(outcome.via).toBe("poll");
    const flow = only("evaluateAndWait");
    expect(flow.attributes).toEqual({
      "promo_review.promotion_id": created.promotionId,
      "promo_review.version_id": created.versionId,
      "promo_review.evaluation_id": outcome.evaluationId,
      "promo_review.evaluation.via": "poll",
      "promo_review.evaluation.status": outcome.status,
      "promo_review.correlation_id": outcome.correlationId,
    });
    const [get, evaluate, ...reads] = namesUnder(flow);
    expect([get, evaluate]).toEqual(["promotions.get", "promotions.evaluate"]);
    expect(reads.length).toBeGreaterThan(1);
    expect(new Set(reads)).toEqual(new Set(["promotions.evaluation"]));
    const polls = flow.events.filter((event) => event.name === "promo_review.evaluation.poll");
    expect(polls.map((event) => event.attributes)).toEqual(
      reads.map((_, index) => ({
        "promo_review.evaluation.poll.attempt": index + 1,
        "promo_review.evaluation.status": index === reads.length - 1 ? outcome.status : "processing",
      })),
    );
    await expectNoSecret();
  });

  it("a versionId that is not an id: the span ends with VALIDATION_ERROR and nothing under it", async () => {
    const client = traced();
    const refused = await client.flows
      .evaluateAndWait("00000000-0000-4000-8000-000000000000", { versionId: null as unknown as string })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    const flow = only("evaluateAndWait");
    expect(flow.attributes).toEqual({
      "promo_review.promotion_id": "00000000-0000-4000-8000-000000000000",
      "error.type": "VALIDATION_ERROR",
    });
    expect(flow.status).toEqual({ code: ERROR, message: "VALIDATION_ERROR" });
    expect(otel.childrenOf(flow)).toEqual([]);
    expect(sim().control.requests()).toEqual([]);
  });
});

describe("the budget the facade makes and its webhook verifier report to the same providers", () => {
  it("a full window: the budget's promo_review.budget.wait span is under the operation that waited", async () => {
    const client = traced({
      rateBudget: {
        // The second call waits only if it starts inside the first one's window: 3 s holds one
        // simulator round trip on a loaded machine, where 400 ms did not have to.
        budgets: [{ name: "tiny", limit: 1, windowMs: 3_000, match: { pathPrefix: "/v1/" } }],
        safetyMarginMs: 0,
      },
    });
    await client.reference.channels();
    await client.reference.jurisdictions();
    const waited = only("reference.jurisdictions");
    expect(namesUnder(waited)).toEqual(["promo_review.budget.wait", "GET /v1/jurisdictions"]);
    const wait = otel.childrenOf(waited).find((span) => span.name === "promo_review.budget.wait")!;
    expect(wait.instrumentationScope.name).toBe("@promo-review/rate-budget");
    expect(wait.attributes).toMatchObject({
      "promo_review.budget.rule": "tiny",
      "promo_review.budget.wait_reason": "window",
    });
    const metrics = await otel.metrics();
    expect(metrics.get("promo_review.budget.wait.duration")?.length).toBeGreaterThan(0);
  });

  it("a refused delivery: one webhooks.verify span with the outcome and the reason, never the secret", async () => {
    const client = traced();
    const body = JSON.stringify({ type: "evaluation-completed", data: {} });
    const headers = await sign({ webhookSecret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", body });
    await expect(client.webhooks.verify({ headers, body })).rejects.toThrow();
    const verify = only("webhooks.verify");
    expect(verify.attributes).toMatchObject({
      "promo_review.webhook.outcome": "refused",
      "promo_review.webhook.reason": "bad_signature",
    });
    await expectNoSecret();
  });
});

describe("propagateTraceContext: traceparent only when asked", () => {
  it("with it, each request carries its CLIENT span's traceparent; without it, none", async () => {
    await traced({}, { propagateTraceContext: true }).reference.channels();
    const [sent] = otel.spansNamed("GET /v1/channels");
    const { traceId, spanId } = sent!.spanContext();
    expect(
      sim()
        .control.requests()
        .map((r) => r.headers["traceparent"]),
    ).toEqual([`00-${traceId}-${spanId}-01`]);
    await sim().control.reset();
    await traced().reference.channels();
    expect(
      sim()
        .control.requests()
        .map((r) => r.headers["traceparent"]),
    ).toEqual([undefined]);
  });
});

describe("without providers, nothing reaches OpenTelemetry", () => {
  it("a global tracer provider that throws is never asked, and every flow works", async () => {
    let asked = 0;
    trace.setGlobalTracerProvider({
      getTracer: () => {
        asked++;
        throw new Error("getTracer must never be called without a provider");
      },
    } as never);
    try {
      const client = clientFor(sim());
      const created = await client.flows.createFromText("Save 5%. Capital at risk.", {
        promotion: promotionFields(sim()),
      });
      await client.flows.submitLatestAndDecide(created.promotionId);
      await client.reference.channels();
      await client.links.capture("https://example.com/offer");
      expect(asked).toBe(0);
      expect(otel.spans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});
