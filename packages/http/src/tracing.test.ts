/**
 * Issue 26, the pipeline's part: a CLIENT span per request on the wire, named and attributed as
 * OpenTelemetry's stable HTTP client semantic conventions say; our events (budget wait, retry) on the
 * operation span; `http.client.request.duration` and our counters; `traceparent` only when asked and
 * only to the configured origins. Real HTTP against the hostile server, which records every header.
 */

import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { type ObservedOperation, type Observer, observed } from "@promo-review/errors/observe";
import { type OpenTelemetryOptions, openTelemetry } from "@promo-review/opentelemetry";
import { afterEach, describe, expect, it } from "vitest";
import {
  echoSecrets,
  envelope,
  json,
  redirect,
  stall,
  useHostileServers,
} from "../../../testing/hostile-server.ts";
import { insideActiveSpan, type RecordingTelemetry, recordingTelemetry } from "../../../testing/otel.ts";
import { createHttpClient, type HttpClientOptions, type RequestBudget } from "./index.js";

const apiKey = "sk_test_tracing_0123456789";
const credentials = { apiKey, externalUserId: "user-42" };
const start = useHostileServers();
const CLIENT = 2;
const STATUS = { unset: 0, error: 2 };
// No waiting between attempts: the retry rules are retry.test.ts's.
const quick = { baseDelayMs: 1, maxDelayMs: 1, upstreamDelayMs: [1, 1] as const, random: () => 0 };
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

let recorders: RecordingTelemetry[] = [];
afterEach(async () => {
  await Promise.all(recorders.map((r) => r.shutdown()));
  recorders = [];
});

/** The adapter on both providers of `otel` (an option given as undefined drops one). */
const adapterOf = (otel: RecordingTelemetry, options: OpenTelemetryOptions = {}): Observer =>
  openTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, ...options });

/**
 * A fresh recorder per test (metrics are cumulative) and a client on a fresh test service reporting to
 * it through the adapter, given `adapter`'s options.
 */
async function traced_client(
  options: Partial<HttpClientOptions> = {},
  otel = recordingTelemetry(),
  adapter: OpenTelemetryOptions = {},
) {
  recorders.push(otel);
  const service = await start();
  const telemetry = adapterOf(otel, adapter);
  const client = createHttpClient({
    baseUrl: service.url,
    ...credentials,
    telemetry,
    retry: quick,
    ...options,
  } as HttpClientOptions);
  /** Runs `work` as operation `promotions.get` of a package built on `client`, on its telemetry. */
  const underOperation = <T>(work: (operation: ObservedOperation | undefined) => Promise<T>) =>
    observed(
      telemetry,
      {
        name: "promotions.get",
        source: { name: "@promo-review/test-package", version: "1.0.0" },
        redact: client.redact,
      },
      work,
    );
  return { otel, service, client, underOperation, port: Number(new URL(service.url).port) };
}

const clientSpans = (otel: RecordingTelemetry) => otel.spans().filter((s) => s.kind === CLIENT);
const events = (span: ReadableSpan, name: string) =>
  span.events.filter((e) => e.name === name).map((e) => e.attributes);

describe("one CLIENT span per request sent, as the stable HTTP client conventions name it", () => {
  it("named `{method} {url.template}`, a child of the operation, with every required attribute", async () => {
    const { otel, service, client, port, underOperation } = await traced_client();
    service.on(/GET \/v1\/promotions\/p-1$/, json(200, { id: "p-1" }));
    await underOperation((operation) =>
      client.request("/v1/promotions/p-1", {
        parent: operation,
        urlTemplate: "/v1/promotions/{promotionId}",
      }),
    );
    const [operation] = otel.spansNamed("promotions.get");
    const [span] = clientSpans(otel);
    expect(clientSpans(otel)).toHaveLength(1);
    expect(span?.name).toBe("GET /v1/promotions/{promotionId}");
    expect(span?.parentSpanContext?.spanId).toBe(operation?.spanContext().spanId);
    expect(span?.instrumentationScope.name).toBe("@promo-review/http");
    expect(span?.attributes).toEqual({
      "http.request.method": "GET",
      "server.address": "127.0.0.1",
      "server.port": port,
      "url.full": `${service.url}/v1/promotions/p-1`,
      "url.template": "/v1/promotions/{promotionId}",
      "http.response.status_code": 200,
    });
    expect(span?.status.code).toBe(STATUS.unset);
  });

  it("without `urlTemplate`: a path holding no id is its own template, any other is named `{method}` alone", async () => {
    const { otel, service, client } = await traced_client();
    service.on(/GET/, json(200, {}));
    const id = "3f2a1c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
    await client.request("/v1/channels?page=2");
    await client.request(`/v1/promotions/${id}`);
    await client.request("/v1/promotions/p-1");
    await client.request(`${service.url}/v1/links/imports`);
    expect(clientSpans(otel).map((s) => [s.name, s.attributes["url.template"]])).toEqual([
      ["GET /v1/channels", "/v1/channels"],
      ["GET", undefined],
      ["GET", undefined],
      // An absolute URL (a service-given `statusUrl`) is never taken for a template.
      ["GET", undefined],
    ]);
  });

  it("without an operation, the CLIENT span is a child of the caller's active span", async () => {
    const { otel, service, client } = await traced_client();
    service.on(/GET \/v1\/channels/, json(200, {}));
    await insideActiveSpan(otel.tracerProvider, "caller", () => client.request("/v1/channels"));
    const [caller] = otel.spansNamed("caller");
    const [span] = clientSpans(otel);
    expect(span?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(span?.parentSpanContext?.traceId).toBe(caller?.spanContext().traceId);
  });

  it("a method the conventions do not know is `_OTHER`, its own name in `method_original`, the span `HTTP`", async () => {
    const { otel, service, client } = await traced_client();
    service.on(/PURGE \/v1\/cache/, json(200, {}));
    await client.request("/v1/cache", { method: "purge", urlTemplate: "/v1/cache" });
    const [span] = clientSpans(otel);
    expect(span?.name).toBe("HTTP /v1/cache");
    expect(span?.attributes["http.request.method"]).toBe("_OTHER");
    expect(span?.attributes["http.request.method_original"]).toBe("PURGE");
  });

  it("`server.port` is the effective port: 443 (https) or 80 (http) when the URL leaves it out", async () => {
    const otel = recordingTelemetry();
    recorders.push(otel);
    const answer = async () => new Response("{}", { status: 200 });
    for (const baseUrl of ["https://api.example.com", "http://api.example.com"]) {
      const client = createHttpClient({
        baseUrl,
        ...credentials,
        fetch: answer,
        telemetry: openTelemetry({ tracerProvider: otel.tracerProvider }),
      });
      await client.request("/v1/channels");
    }
    expect(
      clientSpans(otel).map((s) => [s.attributes["server.address"], s.attributes["server.port"]]),
    ).toEqual([
      ["api.example.com", 443],
      ["api.example.com", 80],
    ]);
  });
});

describe("a failed request's span has status ERROR and `error.type`; an expected answer is no error", () => {
  it("an HTTP failure: the status code, ERROR, and `error.type` our error's code", async () => {
    const { otel, service, client } = await traced_client({ retry: false });
    service.on(/GET \/v1\/promotions/, envelope(404, "NOT_FOUND"));
    await client.request("/v1/promotions/p-9").catch(() => undefined);
    const [span] = clientSpans(otel);
    expect(span?.attributes["http.response.status_code"]).toBe(404);
    expect(span?.attributes["error.type"]).toBe("NOT_FOUND");
    expect(span?.status.code).toBe(STATUS.error);
  });

  it("a timeout: ERROR with `error.type` TIMEOUT", async () => {
    const { otel, service, client } = await traced_client({ retry: false, timeoutMs: 150 });
    service.on(/GET \/v1\/slow/, stall(200));
    const error = await client.request("/v1/slow").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT" });
    const [span] = clientSpans(otel);
    expect(span?.attributes["error.type"]).toBe("TIMEOUT");
    expect(span?.status.code).toBe(STATUS.error);
  });

  it("a 308 the request `expect`s (a chunk PUT's acknowledgement) is an answer: no error", async () => {
    const { otel, service, client } = await traced_client();
    service.on(/PUT \/files\/chunk/, (res) => {
      res.writeHead(308, { range: "bytes=0-99" });
      res.end();
    });
    const result = await client.request("/files/chunk", {
      method: "PUT",
      body: new Uint8Array(100),
      expect: [308],
    });
    expect(result.status).toBe(308);
    const [span] = clientSpans(otel);
    expect(span?.attributes["http.response.status_code"]).toBe(308);
    expect(span?.attributes["error.type"]).toBeUndefined();
    expect(span?.status.code).toBe(STATUS.unset);
  });
});

describe("retries: each attempt its span, resend_count from the second, a `promo_review.retry` event", () => {
  it("503 then 200: two CLIENT spans, the second with resend_count 1, the retry on the operation", async () => {
    const { otel, service, client, underOperation } = await traced_client();
    let calls = 0;
    service.on(/GET \/v1\/channels/, (res, req) =>
      (calls++ === 0 ? envelope(503, "UPSTREAM_ERROR") : json(200, { channels: [] }))(res, req),
    );
    const result = await underOperation((operation) => client.request("/v1/channels", { parent: operation }));
    expect(result.attempts).toBe(2);
    const [first, second] = clientSpans(otel);
    expect(first?.attributes).toMatchObject({
      "http.response.status_code": 503,
      "error.type": "UPSTREAM_ERROR",
    });
    expect(first?.attributes["http.request.resend_count"]).toBeUndefined();
    expect(first?.status.code).toBe(STATUS.error);
    expect(second?.attributes).toMatchObject({
      "http.response.status_code": 200,
      "http.request.resend_count": 1,
    });
    expect(second?.status.code).toBe(STATUS.unset);
    const [operation] = otel.spansNamed("promotions.get");
    expect(events(operation as ReadableSpan, "promo_review.retry")).toEqual([
      { "promo_review.retry.attempt": 2, "promo_review.retry.delay_ms": 1, "error.type": "UPSTREAM_ERROR" },
    ]);
    const metrics = await otel.metrics();
    expect(metrics.get("promo_review.http.retries")).toEqual([
      {
        attributes: {
          "http.request.method": "GET",
          "server.address": "127.0.0.1",
          "server.port": Number(new URL(service.url).port),
          "error.type": "UPSTREAM_ERROR",
        },
        value: 1,
      },
    ]);
  });

  it("without an operation the retry event goes on the failed attempt's own span", async () => {
    const { otel, service, client } = await traced_client();
    let calls = 0;
    service.on(/GET \/v1\/channels/, (res, req) =>
      (calls++ === 0 ? envelope(503, "UPSTREAM_ERROR") : json(200, {}))(res, req),
    );
    await client.request("/v1/channels");
    const [first, second] = clientSpans(otel);
    expect(events(first as ReadableSpan, "promo_review.retry")).toHaveLength(1);
    expect(events(second as ReadableSpan, "promo_review.retry")).toHaveLength(0);
  });

  it("a 429 with Retry-After: the event says the server's wait was honoured; the rate_limited counter counts it", async () => {
    const { otel, service, client, underOperation } = await traced_client();
    let calls = 0;
    service.on(/POST \/v1\/promotions/, (res, req) =>
      (calls++ === 0 ? envelope(429, "RATE_LIMITED", { "retry-after": "1" }) : json(201, { id: "p" }))(
        res,
        req,
      ),
    );
    await underOperation((operation) =>
      client.request("/v1/promotions", { method: "POST", json: {}, parent: operation }),
    );
    const [operation] = otel.spansNamed("promotions.get");
    expect(events(operation as ReadableSpan, "promo_review.retry")).toEqual([
      {
        "promo_review.retry.attempt": 2,
        "promo_review.retry.delay_ms": 1000,
        "promo_review.retry_after_ms": 1000,
        "error.type": "RATE_LIMITED",
      },
    ]);
    const [limited] = clientSpans(otel);
    expect(limited?.attributes).toMatchObject({
      "http.response.status_code": 429,
      "error.type": "RATE_LIMITED",
    });
    const metrics = await otel.metrics();
    expect(metrics.get("promo_review.http.rate_limited")?.map((p) => p.value)).toEqual([1]);
  });
});

describe("a redirect hop is a request of its own: its span, and a resend", () => {
  it("302 then 200: the hop's span ends with its 3xx (no error), the next has resend_count 1", async () => {
    const { otel, service, client, underOperation } = await traced_client({}, undefined, {
      propagateTraceContext: true,
    });
    service.on(/GET \/v1\/old/, redirect(302, `${service.url}/v1/new`));
    service.on(/GET \/v1\/new/, json(200, {}));
    await underOperation((operation) => client.request("/v1/old", { parent: operation }));
    const [hop, landed] = clientSpans(otel);
    // The request's template names the URL asked for, not where the redirect led.
    expect([hop?.name, landed?.name]).toEqual(["GET /v1/old", "GET"]);
    expect(landed?.attributes["url.template"]).toBeUndefined();
    expect(hop?.attributes).toMatchObject({
      "http.response.status_code": 302,
      "url.full": `${service.url}/v1/old`,
      "url.template": "/v1/old",
    });
    expect(hop?.attributes["error.type"]).toBeUndefined();
    expect(hop?.status.code).toBe(STATUS.unset);
    expect(landed?.attributes).toMatchObject({
      "http.response.status_code": 200,
      "url.full": `${service.url}/v1/new`,
      "http.request.resend_count": 1,
    });
    // Each request carried its own span's traceparent.
    expect(service.requests.map((r) => r.headers.traceparent)).toEqual(
      [hop, landed].map((s) => `00-${s?.spanContext().traceId}-${s?.spanContext().spanId}-01`),
    );
  });
});

describe("`url.full` never carries a credential or a signature", () => {
  it("a `?sig=` (and `token=`) value is REDACTED, the rest kept; no secret in any string recorded", async () => {
    const { otel, service, client } = await traced_client();
    service.on(/GET \/v1\/links\/imports/, json(200, {}));
    await client.request(
      "/v1/links/imports/i-1?sig=s3cr3tsig0123&expires=99&token=t0k3nvalue&AWSAccessKeyId=AKIAKEYID42",
    );
    const [span] = clientSpans(otel);
    expect(span?.attributes["url.full"]).toBe(
      `${service.url}/v1/links/imports/i-1?sig=[REDACTED]&expires=99&token=[REDACTED]&AWSAccessKeyId=[REDACTED]`,
    );
    const strings = (await otel.everyString()).join("\n");
    for (const secret of [apiKey, "s3cr3tsig0123", "t0k3nvalue", "AKIAKEYID42"])
      expect(strings).not.toContain(secret);
  });
});

describe("no secret in any span, event or metric, whatever the service echoes", () => {
  it("a service that puts the key into its error code and correlation id: every string recorded is clean", async () => {
    const { otel, service, client, underOperation } = await traced_client({ retry: { ...quick, limit: 1 } });
    service.on(/GET/, echoSecrets(503, `E_${apiKey}`));
    const error = await underOperation((operation) =>
      client.request("/v1/channels?token=t0k3nvalue", { parent: operation }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(clientSpans(otel)).toHaveLength(2);
    const [operation] = otel.spansNamed("promotions.get");
    expect(events(operation as ReadableSpan, "promo_review.retry")).toHaveLength(1);
    const strings = await otel.everyString();
    expect(strings.some((s) => s.includes("[REDACTED]"))).toBe(true);
    for (const secret of [apiKey, "t0k3nvalue"]) expect(strings.join("\n")).not.toContain(secret);
  });
});

describe("`traceparent` only when asked, only with a tracer, only to the configured origins", () => {
  it("a stream body carries it too (the stream transport takes the headers as they are at sending)", async () => {
    const { otel, service, client } = await traced_client({}, undefined, {
      propagateTraceContext: true,
    });
    service.on(/PUT/, json(200, {}));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.close();
      },
    });
    await client.request("/files/chunk", { method: "PUT", body });
    const context = clientSpans(otel)[0]?.spanContext();
    expect(service.requests[0]?.bodyBytes).toBe(3);
    expect(service.requests[0]?.headers.traceparent).toBe(`00-${context?.traceId}-${context?.spanId}-01`);
  });

  it("a span sampled out still propagates, flagged not sampled, and nothing is recorded", async () => {
    const { otel, service, client } = await traced_client({}, recordingTelemetry({ sampledOut: true }), {
      propagateTraceContext: true,
    });
    service.on(/GET/, json(200, {}));
    await client.request("/v1/channels");
    expect(otel.spans()).toEqual([]);
    expect(service.requests[0]?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });

  it("off by default: no traceparent leaves", async () => {
    const { service, client } = await traced_client();
    service.on(/GET/, json(200, {}));
    await client.request("/v1/channels");
    expect(service.requests[0]?.headers.traceparent).toBeUndefined();
  });

  it("asked for: the attempt's span as W3C traceparent", async () => {
    const { otel, service, client } = await traced_client({}, undefined, {
      propagateTraceContext: true,
    });
    service.on(/GET/, json(200, {}));
    await client.request("/v1/channels");
    const context = clientSpans(otel)[0]?.spanContext();
    expect(service.requests[0]?.headers.traceparent).toBe(`00-${context?.traceId}-${context?.spanId}-01`);
  });

  it("asked for, with only a meter provider: nothing to propagate, nothing sent", async () => {
    const { service, client } = await traced_client({}, undefined, {
      tracerProvider: undefined,
      propagateTraceContext: true,
    });
    service.on(/GET/, json(200, {}));
    await client.request("/v1/channels");
    expect(service.requests[0]?.headers.traceparent).toBeUndefined();
  });

  it("a redirect to another origin is refused: no request, so no traceparent, reaches it", async () => {
    const { otel, service, client } = await traced_client({}, undefined, {
      propagateTraceContext: true,
    });
    const stranger = await start();
    stranger.on(/.*/, json(200, {}));
    service.on(/GET \/v1\/old/, redirect(307, `${stranger.url}/v1/new`));
    const error = await client.request("/v1/old", { retry: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FOREIGN_ORIGIN" });
    expect(stranger.requests).toEqual([]);
    expect(service.requests[0]?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [span] = clientSpans(otel);
    expect(span?.attributes).toMatchObject({
      "http.response.status_code": 307,
      "error.type": "FOREIGN_ORIGIN",
    });
  });
});

describe("budget waits: a `promo_review.budget.wait` event, and the operation handed to the budget", () => {
  it("the admission's `waited` becomes the event on the operation span", async () => {
    const seen: unknown[] = [];
    const budget: RequestBudget = {
      async acquire(_request, options) {
        seen.push(options.operation);
        return { settle() {}, waited: { ms: 120, reason: "window" } };
      },
      learn: async () => undefined,
    };
    const { otel, service, client, underOperation } = await traced_client({ budget });
    service.on(/GET/, json(200, {}));
    await underOperation((operation) => client.request("/v1/channels", { parent: operation }));
    const [operation] = otel.spansNamed("promotions.get");
    expect(seen).toHaveLength(1);
    expect((seen[0] as { span: { spanContext(): { spanId: string } } }).span.spanContext().spanId).toBe(
      operation?.spanContext().spanId,
    );
    expect(events(operation as ReadableSpan, "promo_review.budget.wait")).toEqual([
      { "promo_review.budget.wait_ms": 120, "promo_review.budget.wait_reason": "window" },
    ]);
  });
});

describe("`http.client.request.duration`: one point per request sent, in seconds, the advised buckets", () => {
  it("records method, address, port, status and error.type, and the conventions' boundaries", async () => {
    const { otel, service, client, port } = await traced_client();
    let calls = 0;
    service.on(/GET \/v1\/channels/, (res, req) =>
      (calls++ === 0 ? envelope(503, "UPSTREAM_ERROR") : json(200, {}))(res, req),
    );
    const started = performance.now();
    await client.request("/v1/channels");
    const elapsed = (performance.now() - started) / 1000;
    const points = (await otel.metrics()).get("http.client.request.duration") ?? [];
    const base = { "http.request.method": "GET", "server.address": "127.0.0.1", "server.port": port };
    expect(points.map((p) => p.attributes)).toEqual([
      { ...base, "http.response.status_code": 503, "error.type": "UPSTREAM_ERROR" },
      { ...base, "http.response.status_code": 200 },
    ]);
    for (const point of points) {
      const value = point.value as { count: number; sum: number; buckets: { boundaries: number[] } };
      expect(value.count).toBe(1);
      expect(value.sum).toBeGreaterThan(0);
      expect(value.sum).toBeLessThan(elapsed);
      expect(value.buckets.boundaries).toEqual(BUCKETS);
    }
  });
});

describe("without telemetry no telemetry code runs", () => {
  it("no `telemetry`: requests still work, and no trace context leaves", async () => {
    const service = await start();
    service.on(/GET/, json(200, {}));
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    await client.request("/v1/channels");
    expect(service.requests[0]?.headers.traceparent).toBeUndefined();
  });

  it("with a provider, the tracer is asked for once per client, not per request", async () => {
    const otel = recordingTelemetry();
    recorders.push(otel);
    let tracers = 0;
    const tracerProvider = {
      getTracer: (name: string, version?: string) => {
        tracers++;
        return otel.tracerProvider.getTracer(name, version);
      },
    };
    const service = await start();
    service.on(/GET/, json(200, {}));
    const telemetry = openTelemetry({ tracerProvider });
    const client = createHttpClient({ baseUrl: service.url, ...credentials, telemetry });
    for (let i = 0; i < 3; i++) await client.request("/v1/channels");
    expect(tracers).toBe(1);
    expect(clientSpans(otel)).toHaveLength(3);
  });
});
