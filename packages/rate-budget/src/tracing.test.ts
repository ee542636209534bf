import { metrics, trace } from "@opentelemetry/api";
import { redactorFor } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import { openTelemetry } from "@promo-review/opentelemetry";
import { startSimulator } from "@promo-review/simulator";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { insideActiveSpan, type RecordingTelemetry, recordingTelemetry } from "../../../testing/otel.ts";
import { redisAvailable, useRedis } from "../../../testing/redis-server.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { ManualClock } from "../test/support/clock.js";
import { KY_MAJORS } from "../test/support/ky-majors.js";
import { createRateBudget, type RateBudget } from "./budget.js";
import { budgetedFetch } from "./fetch.js";
import { kyHooks } from "./ky-hooks.js";
import { RedisStore } from "./redis.js";
import type { BudgetRule } from "./rules.js";
import type { RateBudgetOptions } from "./types.js";

const WAIT = "promo_review.budget.wait";
const WAIT_METRIC = "promo_review.budget.wait.duration";
const PAUSES = "promo_review.budget.pauses";
const BASE = "http://127.0.0.1:1";
const GET = { method: "GET", url: `${BASE}/v1/channels` };
const LINK = { method: "POST", url: `${BASE}/v1/links` };
const WINDOW_MS = 250;
/** One request per 250 ms for every /v1/ call, a second rule for POST /v1/links. */
const SMALL: BudgetRule[] = [
  { name: "shared", limit: 1, windowMs: WINDOW_MS, match: { pathPrefix: "/v1/" } },
  { name: "links", limit: 1, windowMs: 4 * WINDOW_MS, match: { method: "POST", path: "/v1/links" } },
];
const SPAN_KIND_INTERNAL = 0;
const STATUS_ERROR = 2;

let recording: RecordingTelemetry | undefined;
const budgets: RateBudget[] = [];
afterEach(async () => {
  for (const budget of budgets.splice(0)) budget.close();
  await recording?.shutdown();
  recording = undefined;
});

/** A budget on the real clock reporting to fresh recording providers. */
function traced(options: Partial<RateBudgetOptions> = {}) {
  recording = recordingTelemetry();
  const budget = createRateBudget({
    baseUrl: BASE,
    budgets: SMALL,
    safetyMarginMs: 0,
    telemetry: openTelemetry({
      tracerProvider: recording.tracerProvider,
      meterProvider: recording.meterProvider,
    }),
    ...options,
  });
  budgets.push(budget);
  return { budget, otel: recording };
}

/**
 * An operation as the SDK's clients start one through the adapter (what `@promo-review/http` passes
 * as `operation`): its handle, how to end it, and its span's id once ended.
 */
function operationSpan(otel: RecordingTelemetry, name: string) {
  const telemetry = openTelemetry({ tracerProvider: otel.tracerProvider });
  const source = { name: "@promo-review/test", version: "0" };
  const handle = telemetry.operationStarted?.({ name, source, redact: redactorFor() }) as ObservedOperation;
  return {
    handle,
    end: () => telemetry.operationEnded?.(handle, {}),
    spanId: () => otel.spansNamed(name)[0]?.spanContext().spanId,
  };
}

/** The histogram's points: count per attribute set. */
async function waitPoints(otel: RecordingTelemetry) {
  const points = (await otel.metrics()).get(WAIT_METRIC) ?? [];
  return points.map((p) => ({
    attributes: p.attributes,
    count: (p.value as { count: number }).count,
    sum: (p.value as { sum: number }).sum,
  }));
}

describe("an acquisition that waits for a full window records a promo_review.budget.wait span", () => {
  it("under the operation passed in: INTERNAL, the rule by name, reason window, wait_ms the real wait; the ticket says so too", async () => {
    const { budget, otel } = traced();
    const operation = operationSpan(otel, "promotions.create");
    const first = await budget.acquire(GET, { ticket: true, operation: operation.handle });
    first.settle();
    expect(first.waited).toBeUndefined();
    const started = performance.now();
    const second = await budget.acquire(GET, { ticket: true, operation: operation.handle });
    const elapsed = performance.now() - started;
    second.settle();
    operation.end();

    expect(elapsed).toBeGreaterThan(WINDOW_MS - 20);
    expect(second.waited?.reason).toBe("window");
    // The wait is within the call, which may also include time after the admission: how long this
    // process waits for the CPU before the await resumes is not the budget's, so no lower bound from it.
    expect(second.waited!.ms).toBeGreaterThan(0);
    expect(second.waited!.ms).toBeLessThanOrEqual(elapsed + 1);
    // One span: the acquisition that did not wait recorded none.
    const [wait, ...others] = otel.spansNamed(WAIT);
    expect(others).toEqual([]);
    expect(wait!.kind).toBe(SPAN_KIND_INTERNAL);
    expect(wait!.parentSpanContext?.spanId).toBe(operation.spanId());
    expect(wait!.attributes).toEqual({
      "promo_review.budget.rule": "shared",
      "promo_review.budget.wait_reason": "window",
      "promo_review.budget.wait_ms": second.waited!.ms,
    });
    // The span covers the wait.
    const spanMs = wait!.duration[0] * 1000 + wait!.duration[1] / 1e6;
    // A bound, not a tolerance around wait_ms (which a slow machine can push past 50 ms): the span lies
    // within the call, however slow the machine.
    expect(spanMs).toBeGreaterThan(0);
    expect(spanMs).toBeLessThanOrEqual(elapsed + 1);
    expect(wait!.status.code).not.toBe(STATUS_ERROR);
  });

  it("names the rule whose window is full: a link capture waits for links, not shared", async () => {
    // A manual clock: a real sleep "past shared's window" could, under load, also outlast links'.
    const clock = new ManualClock(1_000_000);
    const { budget, otel } = traced({ clock });
    (await budget.acquire(LINK, { ticket: true })).settle();
    // shared (250 ms) has room again long before links (1 s) does.
    await clock.advance(WINDOW_MS);
    const waiting = budget.acquire(LINK, { ticket: true });
    await clock.runAll();
    const second = await waiting;
    second.settle();
    expect(second.waited?.reason).toBe("window");
    expect(otel.spansNamed(WAIT)[0]!.attributes["promo_review.budget.rule"]).toBe("links");
  });

  it("under the caller's active span when no operation is given", async () => {
    const { budget, otel } = traced();
    const caller = await insideActiveSpan(otel.tracerProvider, "caller", async (span) => {
      await budget.acquire(GET);
      await budget.acquire(GET); // waits: the window is full
      return span;
    });
    const waits = otel.spansNamed(WAIT);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
  });
});

describe("standalone users get the same spans through the budget: the ky hooks", () => {
  const sim = useSimulator(startSimulator, {});

  it.each(KY_MAJORS)(
    "$major: the second request of a full window waits, under the caller's span",
    async ({ create }) => {
      const { budget, otel } = traced({ baseUrl: sim().baseUrl });
      const api = create(sim().baseUrl, {
        retry: 0,
        headers: { Authorization: `Bearer ${sim().apiKey}`, "X-External-User-ID": sim().externalUserId },
        hooks: kyHooks(budget),
      });
      const caller = await insideActiveSpan(otel.tracerProvider, "caller", async (span) => {
        await api.get("v1/channels").json();
        await api.get("v1/channels").json();
        return span;
      });
      const [wait, ...others] = otel.spansNamed(WAIT);
      expect(others).toEqual([]);
      expect(wait!.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(wait!.attributes["promo_review.budget.wait_reason"]).toBe("window");
      expect(wait!.attributes["promo_review.budget.wait_ms"]).toBeGreaterThan(100);
      expect(
        sim()
          .control.requests()
          .filter((r) => r.status === 429),
      ).toEqual([]);
    },
  );
});

describe("a 429 learned pauses the key: the next wait is a pause's, and the pause is counted", () => {
  const sim = useSimulator(startSimulator, {});

  it("budgetedFetch in retry mode: the resend's wait span says paused, carries the Retry-After as promo_review.retry, and promo_review.budget.pauses counts 1", async () => {
    const { budget, otel } = traced({
      baseUrl: sim().baseUrl,
      budgets: undefined, // the service's own limits: nothing waits for a window here
      onThrottled: "retry",
      keyId: sim().apiKey, // against the advice (a key where its id goes): still in no span or metric
    });
    sim().control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 1, count: 1 });
    const apiFetch = budgetedFetch(budget, (request) => fetch(request));
    const started = performance.now();
    const response = await insideActiveSpan(otel.tracerProvider, "caller", () =>
      apiFetch(`${sim().baseUrl}/v1/channels?token=${sim().apiKey}`, {
        headers: { Authorization: `Bearer ${sim().apiKey}`, "X-External-User-ID": sim().externalUserId },
      }),
    );
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);

    const [wait, ...others] = otel.spansNamed(WAIT);
    expect(others).toEqual([]);
    expect(wait!.attributes["promo_review.budget.wait_reason"]).toBe("paused");
    expect(wait!.attributes["promo_review.budget.rule"]).toBe("shared");
    // The pause runs from when the 429 was learned (the call took >= 1000 ms, above); the resend's
    // wait starts later, by however long this process took to get there, which load stretches.
    expect(wait!.attributes["promo_review.budget.wait_ms"]).toBeGreaterThan(0);
    expect(wait!.events.map((e) => [e.name, e.attributes])).toEqual([
      ["promo_review.retry", { "promo_review.retry_after_ms": 1000 }],
    ]);
    const pauses = (await otel.metrics()).get(PAUSES) ?? [];
    expect(pauses).toEqual([{ attributes: { "promo_review.budget.rule": "shared" }, value: 1 }]);
    // Two acquisitions: the first (admitted at once, answered 429), the resend (paused).
    const points = await waitPoints(otel);
    expect(points.map((p) => [p.attributes["promo_review.budget.wait_reason"], p.count]).sort()).toEqual([
      ["none", 1],
      ["paused", 1],
    ]);

    const strings = await otel.everyString();
    expect(strings.length).toBeGreaterThan(0);
    for (const s of strings) expect(s).not.toContain(sim().apiKey);
  });

  it("a resend that did not wait (Retry-After: 0) puts promo_review.retry on the operation span, and records no wait span", async () => {
    const { budget, otel } = traced({ baseUrl: sim().baseUrl, budgets: undefined, onThrottled: "retry" });
    sim().control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 0, count: 1 });
    const operation = operationSpan(otel, "channels.list");
    const apiFetch = budgetedFetch(budget, (request) => fetch(request), { operation: operation.handle });
    const response = await apiFetch(`${sim().baseUrl}/v1/channels`, {
      headers: { Authorization: `Bearer ${sim().apiKey}`, "X-External-User-ID": sim().externalUserId },
    });
    operation.end();
    expect(response.status).toBe(200);
    expect(otel.spansNamed(WAIT)).toEqual([]);
    const [ended] = otel.spansNamed("channels.list");
    expect(ended!.events.map((e) => [e.name, e.attributes])).toEqual([
      ["promo_review.retry", { "promo_review.retry_after_ms": 0 }],
    ]);
    expect((await otel.metrics()).get(PAUSES)?.[0]?.value).toBe(1);
  });

  it("throw mode: the 429 goes back to the caller, the next request's wait says paused", async () => {
    const { budget, otel } = traced({ baseUrl: sim().baseUrl, budgets: undefined });
    sim().control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 1, count: 1 });
    const apiFetch = budgetedFetch(budget);
    const init = {
      headers: { Authorization: `Bearer ${sim().apiKey}`, "X-External-User-ID": sim().externalUserId },
    };
    const started = performance.now();
    expect((await apiFetch(`${sim().baseUrl}/v1/channels`, init)).status).toBe(429);
    const ticket = await budget.acquire(
      { method: "GET", url: `${sim().baseUrl}/v1/jurisdictions` },
      { ticket: true },
    );
    ticket.settle();
    expect(ticket.waited?.reason).toBe("paused");
    // Admitted once the pause learned during the call had run out (the wait itself starts when this
    // process gets to it, later under load).
    expect(ticket.waited!.ms).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    const [wait] = otel.spansNamed(WAIT);
    expect(wait!.attributes["promo_review.budget.wait_reason"]).toBe("paused");
    expect(wait!.events).toEqual([]); // not a resend: no retry event
    expect((await otel.metrics()).get(PAUSES)?.[0]?.value).toBe(1);
  });
});

describe("a pause that comes while a request waits for its window makes its wait a pause's", () => {
  it("the ticket and the span say paused, the span's rule stays the full window's", async () => {
    const { budget, otel } = traced();
    (await budget.acquire(GET, { ticket: true })).settle();
    const answer = new Response(null, { status: 429, headers: { "Retry-After": "1" } });
    // The 429 is learned as the request starts to wait, in the same turn: after a fixed 20 ms sleep, a
    // loaded machine could wake this test after the window (250 ms) had already admitted it.
    const learned = new Promise<number | undefined>((resolve) => {
      budget.once("waiting", () => resolve(budget.learn(answer, GET)));
    });
    const waiting = budget.acquire(GET, { ticket: true });
    expect(await learned).toBe(1000);
    const ticket = await waiting;
    ticket.settle();
    expect(ticket.waited?.reason).toBe("paused");
    expect(ticket.waited!.ms).toBeGreaterThanOrEqual(1000);
    const [wait] = otel.spansNamed(WAIT);
    expect(wait!.attributes).toMatchObject({
      "promo_review.budget.rule": "shared",
      "promo_review.budget.wait_reason": "paused",
    });
    const points = await waitPoints(otel);
    expect(points.map((p) => p.attributes["promo_review.budget.wait_reason"]).sort()).toEqual([
      "none",
      "paused",
    ]);
  });
});

describe("promo_review.budget.wait.duration: one point per acquisition, 0 included", () => {
  it("counts every acquisition, by rule and reason (none when admitted at once)", async () => {
    const { budget, otel } = traced({
      budgets: [{ name: "shared", limit: 3, windowMs: 200, match: { pathPrefix: "/v1/" } }],
    });
    const n = 7;
    await Promise.all(Array.from({ length: n }, () => budget.acquire(GET)));
    const points = await waitPoints(otel);
    expect(points.reduce((total, p) => total + p.count, 0)).toBe(n);
    const byReason = Object.fromEntries(
      points.map((p) => [p.attributes["promo_review.budget.wait_reason"], p]),
    );
    expect(byReason["none"]).toMatchObject({ count: 3, sum: 0 });
    expect(byReason["window"]!.count).toBe(4);
    expect(byReason["window"]!.sum).toBeGreaterThan(0.2); // seconds
    for (const p of points) expect(p.attributes["promo_review.budget.rule"]).toBe("shared");
    expect(otel.spansNamed(WAIT)).toHaveLength(4);
  });
});

describe("a wait that ends without an admission ends its span with an error", () => {
  it("aborted: status ERROR, error.type ABORTED, and the histogram still counts it", async () => {
    const { budget, otel } = traced();
    await budget.acquire(GET);
    const controller = new AbortController();
    const waiting = budget.acquire(GET, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    const [wait] = otel.spansNamed(WAIT);
    expect(wait!.status.code).toBe(STATUS_ERROR);
    expect(wait!.attributes["error.type"]).toBe("ABORTED");
    expect(wait!.attributes["promo_review.budget.wait_ms"]).toBeGreaterThanOrEqual(25);
    const points = await waitPoints(otel);
    expect(points.reduce((total, p) => total + p.count, 0)).toBe(2);
  });

  it("refused (a deadline the wait cannot meet) and closed: status ERROR with the budget's code", async () => {
    const { budget, otel } = traced();
    await budget.acquire(GET);
    await expect(budget.acquire(GET, { maxWaitMs: 10 })).rejects.toMatchObject({ code: "BUDGET_DEADLINE" });
    const closing = budget.acquire(GET);
    budget.close();
    await expect(closing).rejects.toMatchObject({ code: "BUDGET_CLOSED" });
    const types = otel.spansNamed(WAIT).map((s) => [s.status.code, s.attributes["error.type"]]);
    expect(types).toEqual([
      [STATUS_ERROR, "BUDGET_DEADLINE"],
      [STATUS_ERROR, "BUDGET_CLOSED"],
    ]);
  });
});

describe("without telemetry no span or metric code runs", () => {
  it("never reaches for OpenTelemetry: global providers that throw are never touched, waits and 429s included", async () => {
    let touched = 0;
    const throwing = {
      getTracer: () => {
        touched++;
        throw new Error("getTracer called");
      },
      getMeter: () => {
        touched++;
        throw new Error("getMeter called");
      },
    };
    trace.setGlobalTracerProvider(throwing as never);
    metrics.setGlobalMeterProvider(throwing as never);
    try {
      const budget = createRateBudget({ baseUrl: BASE, budgets: SMALL, safetyMarginMs: 0 });
      budgets.push(budget);
      const first = await budget.acquire(GET, { ticket: true });
      first.settle();
      const second = await budget.acquire(GET, { ticket: true });
      second.settle();
      // The pipeline still learns how it waited.
      expect(second.waited?.reason).toBe("window");
      const answer = new Response(null, { status: 429, headers: { "Retry-After": "0" } });
      expect(await budget.learn(answer, GET)).toBe(0);
      const controller = new AbortController();
      const aborted = budget.acquire(GET, { signal: controller.signal });
      controller.abort();
      await expect(aborted).rejects.toMatchObject({ code: "ABORTED" });
      expect(touched).toBe(0);
    } finally {
      trace.disable();
      metrics.disable();
    }
  });

  it("a meter provider alone: the histogram of a wait, and its ticket, without a span to end", async () => {
    recording = recordingTelemetry();
    const budget = createRateBudget({
      baseUrl: BASE,
      budgets: SMALL,
      safetyMarginMs: 0,
      telemetry: openTelemetry({ meterProvider: recording.meterProvider }),
    });
    budgets.push(budget);
    (await budget.acquire(GET, { ticket: true })).settle();
    const waited = await budget.acquire(GET, { ticket: true });
    waited.settle();
    expect(waited.waited?.reason).toBe("window");
    const points = await waitPoints(recording);
    expect(points.map((p) => [p.attributes["promo_review.budget.wait_reason"], p.count]).sort()).toEqual([
      ["none", 1],
      ["window", 1],
    ]);
  });
});

describe.runIf(redisAvailable("rate-budget tracing with a Redis store"))(
  "a shared store (real redis-server): a pause learned by one process is a paused wait in another",
  () => {
    const { connect, prefix } = useRedis(Redis);

    it("concurrent acquisitions with room record no wait, though each waits for the store call ahead of it", async () => {
      const { budget, otel } = traced({
        store: new RedisStore({ client: connect(), prefix: prefix() }),
        budgets: [{ name: "shared", limit: 100, windowMs: 60_000, match: { pathPrefix: "/v1/" } }],
      });
      const tickets = await Promise.all(
        Array.from({ length: 20 }, () => budget.acquire(GET, { ticket: true })),
      );
      for (const ticket of tickets) ticket.settle();
      expect(tickets.map((t) => t.waited)).toEqual(tickets.map(() => undefined));
      expect(otel.spansNamed(WAIT)).toEqual([]);
      const points = await waitPoints(otel);
      expect(points.map((p) => [p.attributes["promo_review.budget.wait_reason"], p.count])).toEqual([
        ["none", 20],
      ]);
    });

    it("the other budget's acquisition waits paused, with its span and ticket saying so", async () => {
      const p = prefix();
      const { budget: other, otel } = traced({ store: new RedisStore({ client: connect(), prefix: p }) });
      const learnerStore = new RedisStore({ client: connect(), prefix: p });
      const learner = createRateBudget({ baseUrl: BASE, budgets: SMALL, store: learnerStore });
      budgets.push(learner);
      const answer = new Response(null, { status: 429, headers: { "Retry-After": "1" } });
      // learn() stores the pause without waiting for Redis; the test waits for Redis's answer (a
      // fixed 50 ms sleep assumed it, and a loaded machine let the other budget in before it).
      const stored = new Promise<unknown>((resolve) => {
        const pause = learnerStore.pause.bind(learnerStore);
        learnerStore.pause = (...args) => {
          const call = pause(...args);
          resolve(call);
          return call;
        };
      });
      const started = performance.now();
      expect(await learner.learn(answer, GET)).toBe(1000);
      await stored;
      const ticket = await other.acquire(GET, { ticket: true });
      ticket.settle();
      expect(ticket.waited?.reason).toBe("paused");
      expect(ticket.waited!.ms).toBeGreaterThan(0);
      // Redis judges the pause by its own clock (TIME), this test by the process's: a few ms apart.
      expect(performance.now() - started).toBeGreaterThan(950);
      const [wait] = otel.spansNamed(WAIT);
      expect(wait!.attributes["promo_review.budget.wait_reason"]).toBe("paused");
      // The pause was learned elsewhere: this process counts none.
      expect((await otel.metrics()).get(PAUSES) ?? []).toEqual([]);
    });
  },
);
