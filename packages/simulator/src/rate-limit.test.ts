import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { call, initiate, mainApi, mainHeaders } from "../test/support/api.js";
import { type Simulator, startSimulator } from "./index.js";
import { admit, SlidingWindowLimiter } from "./rate-limit.js";

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});
/**
 * A simulator whose rate limits read a clock only the test moves: the limits promise windows of
 * clock time, not of wall time, so a loaded machine cannot move a window edge under the test.
 */
async function start(windowMs: number) {
  const clock = { ms: 1_000_000 };
  const sim = await startSimulator({ rateLimitWindowMs: windowMs, now: () => clock.ms });
  sims.push(sim);
  const advance = (ms: number): void => {
    clock.ms += ms;
  };
  return { sim, advance };
}

describe("Limits: main API budget of 60 per window per key, shared by all /v1/ endpoints; 429 with Retry-After and retry_info", () => {
  it("admits exactly 60 across endpoints (validation failures count), then 429", async () => {
    const { sim } = await start(2000);
    const api = mainApi(sim);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0 ? api.post("/v1/promotions", {}) : api.get(i % 3 === 1 ? "/v1/channels" : "/v1/nowhere"),
      ),
    );
    expect(results.filter((r) => r.status === 429)).toHaveLength(0);
    const limited = await api.get("/v1/jurisdictions");
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(limited.headers.get("retry-after"));
    const [info] = limited.body.error.details;
    expect(info.type).toBe("retry_info");
    // The clock has not moved since the 60 were admitted: the whole window remains.
    expect(info.retryAfterSeconds).toBe(2);
    expect(retryAfter).toBe(2);
    expect(limited.body.correlationId).toBe(limited.headers.get("x-correlation-id"));
  });

  it("keys the budget per API key, does not count 401s, and a 429 consumes nothing", async () => {
    const { sim } = await start(60_000);
    const api = mainApi(sim);
    await Promise.all(Array.from({ length: 60 }, () => api.get("/v1/channels")));
    expect((await api.get("/v1/channels")).status).toBe(429);
    const other = mainApi(sim, { Authorization: `Bearer ${sim.keys.actOnBehalfKey}` });
    expect((await other.get("/v1/channels")).status).toBe(200);
    expect(
      (await call(`${sim.baseUrl}/v1/channels`, { headers: { Authorization: "Bearer nope" } })).status,
    ).toBe(401);
  });

  it("leaves the control surface and the file service unlimited", async () => {
    const { sim } = await start(60_000);
    await Promise.all(Array.from({ length: 60 }, () => mainApi(sim).get("/v1/channels")));
    expect((await call(`${sim.baseUrl}/_sim/requests`)).status).toBe(200);
    expect((await initiate(sim, 10)).status).toBe(201);
    expect((await call(`${sim.baseUrl}/v1/channels`, { headers: mainHeaders(sim) })).status).toBe(429);
  });
});

describe("Limits: the window slides (no double burst at a window edge)", () => {
  it("admits only what left the window, never 60 more at an edge", async () => {
    const { sim, advance } = await start(5000);
    const api = mainApi(sim);
    await Promise.all(Array.from({ length: 30 }, () => api.get("/v1/channels")));
    advance(2500);
    await Promise.all(Array.from({ length: 30 }, () => api.get("/v1/channels")));
    expect((await api.get("/v1/channels")).status).toBe(429);
    // One millisecond before the first 30 leave the window nothing fits; at the edge they leave.
    advance(2499);
    expect((await api.get("/v1/channels")).status).toBe(429);
    advance(1);
    // The first 30 have left the window; the last 30 have not: exactly 30 more fit.
    const burst = await Promise.all(Array.from({ length: 40 }, () => api.get("/v1/channels")));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(30);
  });

  it("never admits more than the limit in any window (property, simulated clock)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(50), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 10 }),
        (gaps, limit) => {
          const windowMs = 100;
          const limiter = new SlidingWindowLimiter(limit, windowMs);
          const admitted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const verdict = admit([limiter], "k", now);
            if (verdict.admitted) admitted.push(now);
            else expect(verdict.retryAfterMs).toBeGreaterThan(0);
          }
          for (const t of admitted)
            expect(admitted.filter((u) => u > t - windowMs && u <= t).length).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});

describe("Limits: generic link capture 10 per window per key (POST /v1/links), within the main budget", () => {
  it("admits 10 captures, then 429 on links while other endpoints still work", async () => {
    const { sim } = await start(60_000);
    const api = mainApi(sim);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.post("/v1/links", { url: "https://example.com" })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const limited = await api.post("/v1/links", { url: "https://example.com" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect((await api.get("/v1/channels")).status).toBe(200);
  });
});
