/**
 * The OpenTelemetry observer driven through the observation seam alone, as the pipeline drives it:
 * an operation and its details, a request's attempts, hops, retries, 429s and budget waits become the
 * spans, events and metrics the SDK has always reported (the pipeline's own suite, http's
 * `tracing.test.ts`, proves the same over real HTTP).
 */

import { RateLimitError, ServerError } from "@promo-review/errors";
import { redactorFor } from "@promo-review/errors/internal";
import type { ObservedOperation, RequestStart } from "@promo-review/errors/observe";
import { afterEach, describe, expect, it } from "vitest";
import { recordingTelemetry } from "../../../testing/otel.ts";
import {
  budgetCallbacks,
  literalTemplate,
  openTelemetryObserver,
  spanUrl,
  uploadWaitCallbacks,
  webhookCallbacks,
} from "./telemetry.js";

const SECRET = "sk_live_observer_secret_1234";
const origin = { source: { name: "@promo-review/test", version: "1.0.0" }, redact: redactorFor([SECRET]) };
const url = "https://api.example.com/v1/promotions/p-1";
let recording = recordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = recordingTelemetry();
});

const observer = (propagateTraceContext = false) =>
  openTelemetryObserver(
    {
      tracerProvider: recording.tracerProvider,
      meterProvider: recording.meterProvider,
      propagateTraceContext,
    },
    budgetCallbacks,
  );
const request = (parent?: ObservedOperation): RequestStart => ({
  ...origin,
  method: "GET",
  path: "/v1/promotions/p-1",
  url,
  urlTemplate: "/v1/promotions/{promotionId}",
  correlationId: "c-1",
  parent,
});

describe("an operation: an INTERNAL span, its details as `promo_review.*`, its end's correlation id", () => {
  it("camelCase details become snake_case attributes, redacted; an error sets `error.type`", () => {
    const telemetry = observer();
    const operation = telemetry.operationStarted?.({
      ...origin,
      name: "promotions.create",
      details: {
        promotionId: "p-1",
        uploadIds: ["u-1", SECRET],
        "upload.format": "mp4",
        versionId: undefined,
      },
    });
    expect(operation).toBeDefined();
    telemetry.operationEnded?.(operation as ObservedOperation, {
      correlationId: "c-9",
      error: new RateLimitError({ code: "RATE_LIMITED", message: "slow" }),
    });
    const [span] = recording.spansNamed("promotions.create");
    expect(span?.kind).toBe(0);
    expect(span?.instrumentationScope.name).toBe("@promo-review/test");
    expect(span?.attributes).toEqual({
      "promo_review.promotion_id": "p-1",
      "promo_review.upload_ids": ["u-1", "[REDACTED]"],
      "promo_review.upload.format": "mp4",
      "promo_review.correlation_id": "c-9",
      "error.type": "RATE_LIMITED",
    });
  });

  it("what the operation learnt at its end (the ids its result names) joins its attributes", () => {
    const telemetry = observer();
    const operation = telemetry.operationStarted?.({ ...origin, name: "promotions.create", details: {} });
    telemetry.operationEnded?.(operation as ObservedOperation, {
      correlationId: "c-4",
      details: { promotionId: "p-2", "reference.fromCache": false },
    });
    expect(recording.spansNamed("promotions.create")[0]?.attributes).toEqual({
      "promo_review.promotion_id": "p-2",
      "promo_review.reference.from_cache": false,
      "promo_review.correlation_id": "c-4",
    });
  });

  it("only a meter: no operation handle, and requests still record their duration", async () => {
    const telemetry = openTelemetryObserver({ meterProvider: recording.meterProvider });
    expect(telemetry.operationStarted?.({ ...origin, name: "promotions.get" })).toBeUndefined();
    const attempt = telemetry.requestStarted?.(request())?.attemptStarted?.(1);
    expect(attempt?.sent?.({ url })).toBeUndefined();
    attempt?.answered?.(200);
    attempt?.ended?.({ status: 200 });
    expect((await recording.metrics()).get("http.client.request.duration")).toHaveLength(1);
  });

  it("no provider: nothing is started", () => {
    const telemetry = openTelemetryObserver({});
    expect(telemetry.operationStarted?.({ ...origin, name: "promotions.get" })).toBeUndefined();
    expect(telemetry.requestStarted?.(request())).toBeUndefined();
  });
});

describe("a request through the seam: a CLIENT span per request on the wire, under its operation", () => {
  it("a 503 retried, then a redirect followed, then a 200: spans, events, counters", async () => {
    const telemetry = observer(true);
    const operation = telemetry.operationStarted?.({ ...origin, name: "promotions.get" });
    const observed = telemetry.requestStarted?.(request(operation));
    const first = observed?.attemptStarted?.(1);
    const headers = first?.sent?.({ url, waited: { ms: 40, reason: "window" } });
    expect(headers?.["traceparent"]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    first?.answered?.(503);
    const failure = new ServerError({ code: "UPSTREAM_ERROR", message: "down", status: 503 });
    first?.ended?.({ status: 503, error: failure });
    first?.retrying?.({ error: failure, delayMs: 10, attempt: 1 });
    const second = observed?.attemptStarted?.(2);
    second?.sent?.({ url });
    second?.answered?.(302);
    second?.redirected?.();
    second?.sent?.({ url: `${url}?token=abc` });
    second?.answered?.(200);
    second?.ended?.({ status: 200 });
    observed?.ended?.({ status: 200, attempts: 2 });
    telemetry.operationEnded?.(operation as ObservedOperation, {});

    const client = recording.spans().filter((span) => span.kind === 2);
    expect(client.map((span) => [span.name, span.attributes["http.response.status_code"]])).toEqual([
      ["GET /v1/promotions/{promotionId}", 503],
      ["GET /v1/promotions/{promotionId}", 302],
      ["GET", 200],
    ]);
    expect(client.map((span) => span.attributes["http.request.resend_count"])).toEqual([undefined, 1, 2]);
    expect(client[2]?.attributes["url.full"]).toBe(`${url}?token=[REDACTED]`);
    const [parent] = recording.spansNamed("promotions.get");
    expect(parent?.events.map((event) => event.name)).toEqual([
      "promo_review.budget.wait",
      "promo_review.retry",
    ]);
    const metrics = await recording.metrics();
    expect(metrics.get("promo_review.http.retries")?.[0]?.attributes["error.type"]).toBe("UPSTREAM_ERROR");
    expect(metrics.get("http.client.request.duration")).toHaveLength(3);
  });

  it("a 429 counts as rate limited; a last failure's span ends with the request", async () => {
    const telemetry = observer();
    const observed = telemetry.requestStarted?.({ ...request(), method: "PURGE" });
    const attempt = observed?.attemptStarted?.(1);
    attempt?.sent?.({ url });
    attempt?.answered?.(429);
    attempt?.ended?.({ status: 429, error: { code: "RATE_LIMITED", status: 429 } });
    expect(recording.spans()).toHaveLength(0);
    observed?.ended?.({ error: { code: "RATE_LIMITED" }, attempts: 1 });
    const [span] = recording.spans();
    expect(span?.name).toBe("HTTP /v1/promotions/{promotionId}");
    expect(span?.attributes["http.request.method_original"]).toBe("PURGE");
    expect(span?.attributes["error.type"]).toBe("RATE_LIMITED");
    expect((await recording.metrics()).get("promo_review.http.rate_limited")).toHaveLength(1);
  });

  it("an attempt that never left (refused, or the budget's wait failed) reports no request", async () => {
    const telemetry = observer();
    const observed = telemetry.requestStarted?.(request());
    observed?.attemptStarted?.(1)?.ended?.({ error: { code: "ABORTED" } });
    observed?.ended?.({ error: { code: "ABORTED" }, attempts: 1 });
    expect(recording.spans()).toHaveLength(0);
    expect((await recording.metrics()).get("http.client.request.duration")).toBeUndefined();
  });

  it("a path holding no id is its own template; anything else has none", () => {
    expect(literalTemplate("/v1/promotions?page=2")).toBe("/v1/promotions");
    expect(literalTemplate("/v1/promotions/p-1")).toBeUndefined();
    expect(literalTemplate("https://files.example.com/v1/uploads")).toBeUndefined();
  });

  it("user info becomes the conventions' `REDACTED:REDACTED`, and the fragment (never sent) is left out", () => {
    expect(spanUrl("https://ana:pw0rd@files.example.com/f/1?AWSAccessKeyId=AKIA9&part=2#at-secret")).toBe(
      "https://REDACTED:REDACTED@files.example.com/f/1?AWSAccessKeyId=[REDACTED]&part=2",
    );
    expect(spanUrl("https://files.example.com/a@b/c")).toBe("https://files.example.com/a@b/c");
  });
});

describe("the rate budget through the seam: wait spans, the wait histogram, pauses, resends", () => {
  it("a window's wait that a pause overtook: its span says paused; every acquisition a point", async () => {
    const telemetry = observer();
    const operation = telemetry.operationStarted?.({ ...origin, name: "promotions.create" });
    telemetry.budgetAcquired?.({ ...origin, rule: "shared", reason: "none", ms: 0 });
    const wait = telemetry.budgetWaitStarted?.({
      ...origin,
      rule: "links",
      reason: "window",
      parent: operation,
      retryAfterMs: 0,
    });
    wait?.ended?.({ ms: 250, reason: "paused" });
    telemetry.budgetAcquired?.({ ...origin, rule: "links", reason: "paused", ms: 250 });
    telemetry.budgetAcquired?.({
      ...origin,
      rule: "links",
      reason: "window",
      ms: 9,
      error: { code: "ABORTED" },
    });
    telemetry.budgetResent?.({ parent: operation, retryAfterMs: 1000 });
    telemetry.budgetPaused?.({ ...origin, rule: "shared" });
    telemetry.budgetPaused?.(origin);
    telemetry.operationEnded?.(operation as ObservedOperation, {});

    const [span] = recording.spansNamed("promo_review.budget.wait");
    const [parent] = recording.spansNamed("promotions.create");
    expect(span?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
    expect(span?.attributes).toEqual({
      "promo_review.budget.rule": "links",
      "promo_review.budget.wait_reason": "paused",
      "promo_review.budget.wait_ms": 250,
    });
    expect(span?.events.map((event) => event.attributes)).toEqual([{ "promo_review.retry_after_ms": 0 }]);
    expect(parent?.events.map((event) => event.attributes)).toEqual([
      { "promo_review.retry_after_ms": 1000 },
    ]);
    const metrics = await recording.metrics();
    expect(metrics.get("promo_review.budget.wait.duration")?.map((point) => point.attributes)).toEqual([
      { "promo_review.budget.rule": "shared", "promo_review.budget.wait_reason": "none" },
      { "promo_review.budget.rule": "links", "promo_review.budget.wait_reason": "paused" },
      {
        "promo_review.budget.rule": "links",
        "promo_review.budget.wait_reason": "window",
        "error.type": "ABORTED",
      },
    ]);
    expect(metrics.get("promo_review.budget.pauses")?.map((point) => point.attributes)).toEqual([
      { "promo_review.budget.rule": "shared" },
      {},
    ]);
  });

  it("a meter alone: no wait to follow, the points still recorded", async () => {
    const telemetry = openTelemetryObserver({ meterProvider: recording.meterProvider }, budgetCallbacks);
    expect(telemetry.budgetWaitStarted?.({ ...origin, rule: "shared", reason: "window" })).toBeUndefined();
    telemetry.budgetAcquired?.({ ...origin, rule: "shared", reason: "window", ms: 5 });
    expect((await recording.metrics()).get("promo_review.budget.wait.duration")).toHaveLength(1);
    const silent = openTelemetryObserver({}, budgetCallbacks);
    silent.budgetAcquired?.({ ...origin, rule: "shared", reason: "none", ms: 0 });
    expect(silent.budgetWaitStarted?.({ ...origin, rule: "shared", reason: "window" })).toBeUndefined();
  });
});

describe("a webhook delivery through the seam: its outcome on its span, and counted", () => {
  it("refused: the reason and id on the span, ERROR at its end; counted by outcome and reason", async () => {
    const telemetry = openTelemetryObserver(
      { tracerProvider: recording.tracerProvider, meterProvider: recording.meterProvider },
      webhookCallbacks,
    );
    const parent = telemetry.operationStarted?.({ ...origin, name: "webhooks.verify" });
    telemetry.webhookVerified?.({
      ...origin,
      parent,
      outcome: "refused",
      reason: "bad_signature",
      webhookId: `msg_${SECRET}`,
    });
    telemetry.operationEnded?.(parent as ObservedOperation, {
      error: { code: "WEBHOOK_VERIFICATION_FAILED" },
    });
    const [span] = recording.spansNamed("webhooks.verify");
    expect(span?.attributes).toEqual({
      "promo_review.webhook.outcome": "refused",
      "promo_review.webhook.reason": "bad_signature",
      "promo_review.webhook.id": "msg_[REDACTED]",
      "error.type": "WEBHOOK_VERIFICATION_FAILED",
    });
    const points = (await recording.metrics()).get("promo_review.webhook.deliveries");
    expect(points?.map((point) => point.attributes)).toEqual([
      { "promo_review.webhook.outcome": "refused", "promo_review.webhook.reason": "bad_signature" },
    ]);
  });
});

describe("a wait for uploads not ready: a `promo_review.upload_wait` event on the waiting operation", () => {
  it("the uploads, the attempt answered 409 and, without a waiter, the backoff slept", () => {
    const telemetry = openTelemetryObserver(
      { tracerProvider: recording.tracerProvider },
      uploadWaitCallbacks,
    );
    const operation = telemetry.operationStarted?.({ ...origin, name: "promotions.create" });
    telemetry.uploadWaited?.({ parent: operation, uploadIds: ["u-1"], attempt: 1 });
    telemetry.uploadWaited?.({ parent: operation, uploadIds: ["u-1", "u-2"], attempt: 2, delayMs: 500 });
    telemetry.operationEnded?.(operation as ObservedOperation, {});
    const [span] = recording.spansNamed("promotions.create");
    expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "promo_review.upload_wait",
        { "promo_review.upload_ids": ["u-1"], "promo_review.upload_wait.attempt": 1 },
      ],
      [
        "promo_review.upload_wait",
        {
          "promo_review.upload_ids": ["u-1", "u-2"],
          "promo_review.upload_wait.attempt": 2,
          "promo_review.upload_wait.delay_ms": 500,
        },
      ],
    ]);
  });

  it("a wait with no operation to put it on (no tracer) reports nothing", () => {
    const telemetry = openTelemetryObserver({ meterProvider: recording.meterProvider }, uploadWaitCallbacks);
    expect(() => telemetry.uploadWaited?.({ uploadIds: ["u-1"], attempt: 1 })).not.toThrow();
    expect(recording.spans()).toEqual([]);
  });
});
