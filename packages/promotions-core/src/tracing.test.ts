/**
 * OpenTelemetry, as the user's providers record it: each operation of the promotions client is one
 * INTERNAL span named for its method, parented on the caller's active span, with every HTTP attempt's
 * CLIENT span (http's) and every budget wait (rate-budget's) under it. Real HTTP against the simulator.
 */
import { context, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { ValidationError } from "@promo-review/errors";
import { openTelemetry } from "@promo-review/opentelemetry";
import { createRateBudget } from "@promo-review/rate-budget";
import { startSimulator } from "@promo-review/simulator";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { insideActiveSpan, recordingTelemetry } from "../../../testing/otel.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { chunkerWaiter, clientFor, simTextBody, startUpload } from "../test/support/sim.js";
import type { PromotionsClientOptions } from "./promotions.js";

const sim = useSimulator(startSimulator, {
  seed: 26,
  uploadProcessingDelayMs: 300,
  evaluationDelayMs: 20,
  commentIndexDelayMs: 100,
});
const otel = recordingTelemetry();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

const INTERNAL = 0;
const CLIENT = 2;
const UNSET = 0;
const ERROR = 2;

/** The recording providers, through the OpenTelemetry adapter. */
const telemetry = openTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
/** A client reporting to the recording providers. */
const tracedClient = (options: Partial<PromotionsClientOptions> = {}) =>
  clientFor(sim(), { telemetry, ...options });

/** The one ended span named `name`. */
function only(name: string): ReadableSpan {
  const spans = otel.spansNamed(name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0]!;
}

/** `url.full` of a main-API path. */
const full = (path: string) => `${sim().baseUrl}${path}`;
const port = () => Number(new URL(sim().baseUrl).port);

/** The attributes every CLIENT span of a main-API request has (http's, stable conventions). */
const clientAttributes = (method: string, path: string, template: string, status: number) => ({
  "http.request.method": method,
  "server.address": "127.0.0.1",
  "server.port": port(),
  "url.full": full(path),
  "url.template": template,
  "http.response.status_code": status,
});

/** Every configured secret is absent from every span, event and metric. */
async function expectNoSecret() {
  const strings = await otel.everyString();
  expect(strings.length).toBeGreaterThan(0);
  for (const secret of [sim().apiKey]) expect(strings.filter((s) => s.includes(secret))).toEqual([]);
}

/**
 * Spans in the order they started. A span's start is read from `Date.now()` (whole milliseconds), so
 * two steps in one millisecond tie: the one that ended first (steps run one after another) came first.
 */
const byStart = (a: ReadableSpan, b: ReadableSpan) => {
  const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
  return ms(a.startTime) - ms(b.startTime) || ms(a.endTime) - ms(b.endTime);
};

describe("an operation is one INTERNAL span under the caller's active span, each attempt a CLIENT span under it", () => {
  it("promotions.create: parented on the caller's span, ids and correlation id as attributes, one POST /v1/promotions", async () => {
    const client = tracedClient();
    const { caller, created } = await insideActiveSpan(otel.tracerProvider, "caller", async (caller) => ({
      caller,
      created: await client.create(simTextBody(sim())),
    }));
    const operation = only("promotions.create");
    expect(operation.kind).toBe(INTERNAL);
    expect(operation.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(operation.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(operation.instrumentationScope.name).toBe("@promo-review/promotions-core");
    expect(operation.attributes).toEqual({
      "promo_review.promotion_id": created.promotionId,
      "promo_review.version_id": created.versionId,
      "promo_review.correlation_id": created.correlationId,
    });
    expect(operation.status.code).toBe(UNSET);
    const [attempt, ...more] = otel.childrenOf(operation);
    expect(more).toEqual([]);
    expect(attempt!.name).toBe("POST /v1/promotions");
    expect(attempt!.kind).toBe(CLIENT);
    expect(attempt!.attributes).toEqual(clientAttributes("POST", "/v1/promotions", "/v1/promotions", 201));
    await expectNoSecret();
  });

  it("every operation is named for its method and its CLIENT span for the spec's path template", async () => {
    const client = tracedClient();
    const { promotionId, versionId } = await client.create(simTextBody(sim()));
    const version = await client.createVersion(promotionId, { fileFormat: "text", content: "Version two" });
    await client.get(promotionId);
    await client.submit(promotionId, versionId);
    await client.decision(promotionId, versionId);
    const { evaluationId } = await client.evaluate(promotionId, versionId);
    await client.evaluation(promotionId, versionId, evaluationId);
    const ids = { "promo_review.promotion_id": promotionId, "promo_review.version_id": versionId };
    const expected: [string, string, Record<string, unknown>][] = [
      [
        "promotions.createVersion",
        "POST /v1/promotions/{promotionId}/versions",
        { ...ids, "promo_review.version_id": version.versionId },
      ],
      ["promotions.get", "GET /v1/promotions/{promotionId}", { "promo_review.promotion_id": promotionId }],
      ["promotions.submit", "POST /v1/promotions/{promotionId}/versions/{versionId}/submit", ids],
      ["promotions.decision", "GET /v1/promotions/{promotionId}/versions/{versionId}/decision", ids],
      [
        "promotions.evaluate",
        "POST /v1/promotions/{promotionId}/versions/{versionId}/evaluate",
        { ...ids, "promo_review.evaluation_id": evaluationId },
      ],
      [
        "promotions.evaluation",
        "GET /v1/promotions/{promotionId}/versions/{versionId}/evaluations/{evaluationId}",
        { ...ids, "promo_review.evaluation_id": evaluationId },
      ],
    ];
    for (const [name, clientName, attributes] of expected) {
      const operation = only(name);
      const { "promo_review.correlation_id": correlationId, ...rest } = operation.attributes;
      expect(rest, name).toEqual(attributes);
      expect(correlationId, name).toMatch(/^[0-9a-f-]{36}$/);
      expect(
        otel.childrenOf(operation).map((span) => [span.name, span.attributes["url.template"]]),
        name,
      ).toEqual([[clientName, clientName.slice(clientName.indexOf(" ") + 1)]]);
    }
    await expectNoSecret();
  });

  it("submitLatest: the read of the promotion and the submit are child operations, under one correlation id", async () => {
    const client = tracedClient();
    const { promotionId, versionId } = await client.create(simTextBody(sim()));
    otel.reset();
    await client.submitLatest(promotionId);
    const operation = only("promotions.submitLatest");
    expect(operation.attributes).toMatchObject({
      "promo_review.promotion_id": promotionId,
      "promo_review.version_id": versionId,
    });
    const steps = otel.childrenOf(operation);
    expect(steps.map((span) => span.name)).toEqual(["promotions.get", "promotions.submit"]);
    expect(steps.map((step) => otel.childrenOf(step).map((span) => span.name))).toEqual([
      ["GET /v1/promotions/{promotionId}"],
      ["POST /v1/promotions/{promotionId}/versions/{versionId}/submit"],
    ]);
    // One correlation id covers both steps, as without tracing.
    const ids = new Set([operation, ...steps].map((span) => span.attributes["promo_review.correlation_id"]));
    expect(ids.size).toBe(1);
  });
});

describe("a retried attempt: two CLIENT spans under one operation span", () => {
  it("a 503 then a 200: the first attempt's span has the error, the second its resend count", async () => {
    const client = tracedClient({ retry: { baseDelayMs: 10, maxDelayMs: 20 } });
    const { promotionId } = await client.create(simTextBody(sim()));
    otel.reset();
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "status", status: 503, count: 1 });
    const read = await client.get(promotionId);
    const operation = only("promotions.get");
    expect(operation.status.code).toBe(UNSET);
    expect(operation.attributes["promo_review.correlation_id"]).toBe(read.correlationId);
    const path = `/v1/promotions/${promotionId}`;
    const template = "/v1/promotions/{promotionId}";
    const [first, second, ...more] = otel.childrenOf(operation).sort(byStart);
    expect(more).toEqual([]);
    expect(first!.attributes).toEqual({
      ...clientAttributes("GET", path, template, 503),
      "error.type": "UPSTREAM_ERROR",
    });
    expect(first!.status.code).toBe(ERROR);
    expect(second!.attributes).toEqual({
      ...clientAttributes("GET", path, template, 200),
      "http.request.resend_count": 1,
    });
    expect(second!.status.code).toBe(UNSET);
    // The retry is an event of the operation (http's), naming the error and the wait.
    const retries = operation.events.filter((event) => event.name === "promo_review.retry");
    expect(retries.map((event) => event.attributes?.["error.type"])).toEqual(["UPSTREAM_ERROR"]);
  });
});

describe("a 429 pause: the wait for the budget is under the operation that waited", () => {
  it("an operation sent while a 429 pauses the key waits in a promo_review.budget.wait span, then sends", async () => {
    const budget = createRateBudget({ baseUrl: sim().baseUrl, telemetry });
    const client = tracedClient({ budget, retry: { maxDelayMs: 2_000 } });
    const { promotionId } = await client.create(simTextBody(sim()));
    otel.reset();
    sim().control.addFault({
      route: "GET /v1/promotions/*",
      kind: "rate-limit",
      retryAfterSeconds: 1,
      count: 1,
    });
    // Once the 429 is learned (the budget says "throttled"), a second operation waits for the pause
    // to end. (Polling the service's log for the 429, then sleeping 20 ms, assumed the client had
    // learned it by then, which a loaded machine does not promise.)
    const learned = new Promise((resolve) => budget.once("throttled", resolve));
    const first = client.get(promotionId, { correlationId: "00000000-0000-4000-8000-000000000001" });
    await learned;
    const second = await client.get(promotionId, { correlationId: "00000000-0000-4000-8000-000000000002" });
    await first;
    const waited = otel
      .spansNamed("promotions.get")
      .find((span) => span.attributes["promo_review.correlation_id"] === second.correlationId)!;
    const children = otel.childrenOf(waited);
    expect(children.map((span) => span.name).sort()).toEqual([
      "GET /v1/promotions/{promotionId}",
      "promo_review.budget.wait",
    ]);
    const wait = children.find((span) => span.name === "promo_review.budget.wait")!;
    const sent = children.find((span) => span.name !== "promo_review.budget.wait")!;
    expect(wait.attributes["promo_review.budget.wait_reason"]).toBe("paused");
    expect(wait.attributes["promo_review.budget.wait_ms"]).toBeGreaterThan(500);
    // The wait began long before the request left (each span's clock is anchored on its own, so
    // their ends and starts are compared only at this scale).
    const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
    expect(ms(sent.startTime) - ms(wait.startTime)).toBeGreaterThan(500);
    expect(sent.attributes["http.response.status_code"]).toBe(200);
    // http tells the operation too, as an event with the same reason.
    const event = waited.events.find((e) => e.name === "promo_review.budget.wait");
    expect(event?.attributes?.["promo_review.budget.wait_reason"]).toBe("paused");
    // The operation that met the 429: RATE_LIMITED on its first attempt, then a resend.
    const limited = otel
      .spansNamed("promotions.get")
      .find((span) => span.attributes["promo_review.correlation_id"] !== second.correlationId)!;
    expect(
      otel
        .childrenOf(limited)
        .filter((span) => span.kind === CLIENT)
        .map((span) => [span.attributes["http.response.status_code"], span.attributes["error.type"]])
        .sort(),
    ).toEqual([
      [200, undefined],
      [429, "RATE_LIMITED"],
    ]);
    await expectNoSecret();
  });
});

describe("a local validation failure: the operation span ends with VALIDATION_ERROR and no CLIENT span", () => {
  it("an over-long details, and a promotion id that is not a uuid (left out of the attributes)", async () => {
    const client = tracedClient();
    const refused = await client
      .create(simTextBody(sim(), { details: "d".repeat(1501) }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    const badId = await client.get("pr_not-a-uuid").catch((error: unknown) => error);
    expect(badId).toBeInstanceOf(ValidationError);
    for (const name of ["promotions.create", "promotions.get"]) {
      const operation = only(name);
      expect(operation.attributes, name).toEqual({ "error.type": "VALIDATION_ERROR" });
      expect(operation.status, name).toEqual({ code: ERROR, message: "VALIDATION_ERROR" });
      expect(otel.childrenOf(operation), name).toEqual([]);
    }
    expect(otel.spans().filter((span) => span.kind === CLIENT)).toEqual([]);
    expect(sim().control.requests()).toEqual([]);
  });
});

describe("a 409 upload_not_ready: each wait for the uploads is a promo_review.upload_wait event", () => {
  it("one wait through the injected waiter, then the resend: two CLIENT spans under promotions.create", async () => {
    const client = tracedClient({ waitForUploads: chunkerWaiter(sim()) });
    const uploadId = await startUpload(sim());
    const created = await client.create(
      simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }),
    );
    const operation = only("promotions.create");
    expect(operation.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "promo_review.upload_wait",
        { "promo_review.upload_ids": [uploadId], "promo_review.upload_wait.attempt": 1 },
      ],
    ]);
    expect(
      otel
        .childrenOf(operation)
        .map((span) => [
          span.name,
          span.attributes["http.response.status_code"],
          span.attributes["error.type"],
        ])
        .sort(),
    ).toEqual([
      ["POST /v1/promotions", 201, undefined],
      // The envelope's code; `upload_not_ready` is in its details.
      ["POST /v1/promotions", 409, "CONFLICT"],
    ]);
    expect(operation.attributes["promo_review.promotion_id"]).toBe(created.promotionId);
  });

  it("without a waiter, the backoff slept is on the event", async () => {
    const client = tracedClient({ uploadRetryDelayMs: 400 });
    const uploadId = await startUpload(sim());
    await client.create(simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }));
    const waits = only("promotions.create").events.filter(
      (event) => event.name === "promo_review.upload_wait",
    );
    expect(waits.length).toBeGreaterThan(0);
    waits.forEach((event, index) => {
      expect(Object.keys(event.attributes ?? {}).sort()).toEqual([
        "promo_review.upload_ids",
        "promo_review.upload_wait.attempt",
        "promo_review.upload_wait.delay_ms",
      ]);
      expect(event.attributes?.["promo_review.upload_wait.attempt"]).toBe(index + 1);
      expect(event.attributes?.["promo_review.upload_wait.delay_ms"]).toBeGreaterThan(0);
    });
  });
});

describe("reference data and comment replies are operations too", () => {
  it("reference.channels: fetched (a CLIENT span), then served from the cache (none)", async () => {
    const client = tracedClient();
    await client.reference.channels();
    await client.reference.channels();
    const [fetched, cached, ...more] = otel.spansNamed("reference.channels");
    expect(more).toEqual([]);
    expect(fetched!.attributes).toEqual({
      "promo_review.reference.from_cache": false,
      "promo_review.correlation_id": expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(otel.childrenOf(fetched!).map((span) => span.name)).toEqual(["GET /v1/channels"]);
    expect(cached!.attributes).toMatchObject({ "promo_review.reference.from_cache": true });
    expect(otel.childrenOf(cached!)).toEqual([]);
    await client.reference.refresh(["jurisdictions"]);
    const refresh = only("reference.refresh");
    expect(otel.childrenOf(refresh).map((span) => span.name)).toEqual(["GET /v1/jurisdictions"]);
  });

  it("promotions.replyToComment: the comment id, and one CLIENT span per attempt", async () => {
    const client = tracedClient();
    const { promotionId, versionId } = await client.create(simTextBody(sim()));
    const { evaluationId } = await client.evaluate(promotionId, versionId);
    const finished = () =>
      sim()
        .control.evaluations()
        .find((e) => e.evaluationId === evaluationId && e.status !== "processing");
    while (!finished()) await new Promise((resolve) => setTimeout(resolve, 10));
    const commentId = finished()!.issues[0]!.commentId!;
    const reply = await client.replyToComment(
      commentId,
      { content: "Risk warning added" },
      { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 30 },
    );
    expect(reply.replyAttempts).toBeGreaterThan(1);
    const operation = only("promotions.replyToComment");
    expect(operation.attributes).toEqual({
      "promo_review.comment_id": commentId,
      "promo_review.correlation_id": reply.correlationId,
    });
    expect(otel.childrenOf(operation).map((span) => span.attributes["url.template"])).toEqual(
      Array.from({ length: reply.replyAttempts }, () => "/v1/comments"),
    );
  });
});

describe("without a provider, nothing reaches OpenTelemetry", () => {
  it("a global tracer provider that throws is never asked: the client has no telemetry and works", async () => {
    let asked = 0;
    const throwing = {
      getTracer: () => {
        asked++;
        throw new Error("getTracer must never be called without a provider");
      },
    };
    // As if the application registered its own SDK globally: the packages never reach for it.
    trace.setGlobalTracerProvider(throwing as never);
    try {
      const client = clientFor(sim());
      expect(client.http.telemetry).toBe(undefined);
      const { promotionId, versionId } = await context.with(context.active(), () =>
        client.create(simTextBody(sim())),
      );
      await client.submitLatest(promotionId);
      await client.decision(promotionId, versionId);
      await client.reference.channels();
      await client.get("not-a-uuid").catch(() => undefined);
      expect(asked).toBe(0);
      expect(otel.spans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });

  it("a provider given to the client is asked once for the package's tracer (the probe above would have thrown)", async () => {
    let asked = 0;
    const counting = {
      getTracer: (name: string, version?: string) => {
        asked++;
        return otel.tracerProvider.getTracer(name, version);
      },
    };
    const client = clientFor(sim(), { telemetry: openTelemetry({ tracerProvider: counting }) });
    await client.create(simTextBody(sim()));
    await client.reference.channels();
    expect(asked).toBeGreaterThan(0);
    expect(otel.spansNamed("promotions.create")).toHaveLength(1);
  });
});
