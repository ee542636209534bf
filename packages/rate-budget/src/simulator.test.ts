import { AbortError } from "@promo-review/errors";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterEach, describe, expect, it } from "vitest";
import { KY_MAJORS, type KyMajor } from "../test/support/ky-majors.js";
import { createRateBudget } from "./budget.js";
import { budgetedFetch } from "./fetch.js";
import { kyHooks } from "./ky-hooks.js";
import type { RateBudgetOptions } from "./types.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setup(
  simOptions: Parameters<typeof startSimulator>[0],
  budget: Partial<RateBudgetOptions>,
  kyMajor: KyMajor = KY_MAJORS[1],
  kyRetry: { limit: number; statusCodes: number[]; delay: () => number } | 0 = 0,
) {
  sim = await startSimulator(simOptions);
  const rateBudget = createRateBudget({ baseUrl: sim.baseUrl, safetyMarginMs: 20, ...budget });
  const headers = { Authorization: `Bearer ${sim.apiKey}`, "X-External-User-ID": sim.externalUserId };
  // ky (retry 0 unless a test retries), the budget's hooks merged into `hooks`.
  const api = kyMajor.create(sim.baseUrl, { retry: kyRetry, headers, hooks: kyHooks(rateBudget) });
  return { sim, budget: rateBudget, api, headers };
}

const arrivals = (s: Simulator, path: string) =>
  s.control
    .requests()
    .filter((r) => r.path === path)
    .map((r) => ({ status: r.status, at: Date.parse(r.time), fault: r.fault !== undefined }));

describe.each(KY_MAJORS)("$major hooks against the simulator", (kyMajor) => {
  const { HTTPError } = kyMajor;
  it("a forced 429 pauses the whole budget: no waiting request reaches the server before Retry-After", async () => {
    const { sim, budget, api } = await setup({}, {}, kyMajor);
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 1, count: 1 });
    const throttled: number[] = [];
    budget.on("throttled", (e) => throttled.push(e.pauseMs));
    const first = await api.get("v1/channels").catch((e: unknown) => e);
    expect(first).toBeInstanceOf(HTTPError);
    expect((first as InstanceType<typeof HTTPError>).response.status).toBe(429);
    expect(throttled).toEqual([1000]);
    // Everything sent after the 429 waits for the pause, whichever route.
    const [channels, jurisdictions, more] = await Promise.all([
      api.get("v1/channels").json<{ channels: unknown[] }>(),
      api.get("v1/jurisdictions").json<{ jurisdictions: unknown[] }>(),
      api.get("v1/channels").json<{ channels: unknown[] }>(),
    ]);
    expect(channels.channels.length).toBeGreaterThan(0);
    expect(jurisdictions.jurisdictions.length).toBeGreaterThan(0);
    expect(more.channels.length).toBeGreaterThan(0);
    const log = [...arrivals(sim, "/v1/channels"), ...arrivals(sim, "/v1/jurisdictions")];
    const forced = log.find((r) => r.fault)!;
    const after = log.filter((r) => !r.fault);
    expect(after).toHaveLength(3);
    for (const r of after) expect(r.at - forced.at).toBeGreaterThanOrEqual(1000);
  });

  it("the server's own 429 (its window exceeded) is learned from retry_info, and onThrottled retry resends", async () => {
    // The client thinks 8 per second are fine; the server allows 4. The budget learns from the 429s.
    const { sim, budget, api } = await setup(
      { rateLimitWindowMs: 1000, mainApiLimit: 4 },
      {
        budgets: [{ name: "shared", limit: 8, windowMs: 1000, match: { pathPrefix: "/v1/" } }],
        onThrottled: "retry",
      },
      kyMajor,
    );
    const pauses: number[] = [];
    budget.on("throttled", (e) => pauses.push(e.pauseMs));
    const results = await Promise.all(Array.from({ length: 8 }, () => api.get("v1/channels").json()));
    expect(results).toHaveLength(8);
    const log = arrivals(sim, "/v1/channels");
    expect(log.filter((r) => r.status === 200)).toHaveLength(8);
    expect(log.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    // retry_info is exact (under a second here) and Retry-After whole seconds (1): the larger wins.
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.every((ms) => ms === 1000)).toBe(true);
  });

  it("onThrottled retry resends a POST's 429 with its body, with ky's own retry off", async () => {
    const { sim, api } = await setup({}, { onThrottled: "retry" }, kyMajor);
    sim.control.addFault({ route: "POST /v1/links", kind: "rate-limit", retryAfterSeconds: 0, count: 1 });
    const link = await api.post("v1/links", { json: { url: "https://example.com/promo" } });
    expect(link.status).toBe(201);
    expect(arrivals(sim, "/v1/links").map((r) => r.status)).toEqual([429, 201]);
  });

  it("onThrottled retry gives up after maxThrottleRetries and hands the last 429 to ky", async () => {
    const { sim, api } = await setup({}, { onThrottled: "retry", maxThrottleRetries: 1 }, kyMajor);
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 0, count: 2 });
    const error = await api.get("v1/channels").catch((e: unknown) => e);
    expect((error as InstanceType<typeof HTTPError>).response.status).toBe(429);
    expect(arrivals(sim, "/v1/channels")).toHaveLength(2);
  });

  it("passes the request's signal: an abort while waiting rejects with AbortError and sends nothing", async () => {
    const { sim, budget, api } = await setup({}, {}, kyMajor);
    budget.pauseFor(60_000);
    const controller = new AbortController();
    // Waits until the request is queued in the budget (not a fixed sleep: ky reaches its hook after
    // a few turns of its own, which a loaded machine does not bound).
    const queued = new Promise((resolve) => budget.once("waiting", resolve));
    const pending = api.get("v1/channels", { signal: controller.signal }).catch((e: unknown) => e);
    await queued;
    expect(budget.pending).toBe(1);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).mayHaveReachedServer).toBe(false);
    expect(arrivals(sim, "/v1/channels")).toHaveLength(0);
  });

  it("reads priority and deadline from ky's context option", async () => {
    const { budget, api } = await setup({}, {}, kyMajor);
    budget.pauseFor(60_000);
    const error = await api
      .get("v1/channels", { context: { rateBudget: { maxWaitMs: 100 } } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "BUDGET_DEADLINE" });
  });

  describe("every attempt of ky's own retry takes budget (ky 2: in beforeRetry)", () => {
    const retry503 = { limit: 2, statusCodes: [503], delay: () => 0 };
    const perMinute = (limit: number) => ({
      budgets: [{ name: "shared", limit, windowMs: 60_000, match: { pathPrefix: "/v1/" } }],
    });

    it("a retry past a full window waits for it, and is refused at its deadline", async () => {
      // One request per minute: the first attempt takes it, so the retry would wait a minute.
      const { sim, api } = await setup({}, perMinute(1), kyMajor, retry503);
      sim.control.addFault({ route: "GET /v1/channels", kind: "status", status: 503, count: 1 });
      const error = await api
        .get("v1/channels", { context: { rateBudget: { maxWaitMs: 200 } } })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "BUDGET_DEADLINE" });
      // The retry never reached the service: only the first attempt did.
      expect(arrivals(sim, "/v1/channels").map((r) => r.status)).toEqual([503]);
    });

    it("two attempts spend two admissions", async () => {
      const { sim, budget, api } = await setup({}, perMinute(2), kyMajor, retry503);
      sim.control.addFault({ route: "GET /v1/channels", kind: "status", status: 503, count: 1 });
      expect((await api.get("v1/channels")).status).toBe(200);
      expect(arrivals(sim, "/v1/channels").map((r) => r.status)).toEqual([503, 200]);
      // Both admissions of the window are spent: a third request would wait for the window.
      await expect(
        budget.acquire({ url: `${sim.baseUrl}/v1/channels` }, { maxWaitMs: 100 }),
      ).rejects.toMatchObject({ code: "BUDGET_DEADLINE" });
    });
  });

  it("a chunk PUT to the file service passes straight through, even while paused", async () => {
    const { sim, budget } = await setup({}, {}, kyMajor);
    budget.pauseFor(60_000);
    const files = kyMajor.create(sim.filesUrl, {
      retry: 0,
      hooks: kyHooks(budget),
      throwHttpErrors: false,
    });
    const response = await files.get("v1/uploads/00000000-0000-4000-8000-000000000000", {
      headers: { Authorization: `Bearer ${sim.apiKey}`, "x-external-user-id": sim.externalUserId },
    });
    expect(response.status).toBe(404);
  });
});

describe("budgetedFetch against the simulator", () => {
  it("spends the budget exactly: the sixth request of five per window waits for the window", async () => {
    const { sim, budget, headers } = await setup(
      { rateLimitWindowMs: 1000, mainApiLimit: 5 },
      { budgets: [{ name: "shared", limit: 5, windowMs: 1000, match: { pathPrefix: "/v1/" } }] },
    );
    const fetchWithBudget = budgetedFetch(budget);
    const statuses = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetchWithBudget(`${sim.baseUrl}/v1/channels`, { headers }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const log = arrivals(sim, "/v1/channels");
    expect(log.every((r) => r.status === 200)).toBe(true);
  });

  it("learns a 429 and, in retry mode, resends the request with its body", async () => {
    const { sim, headers } = await setup({}, {});
    const budget = createRateBudget({ baseUrl: sim.baseUrl, onThrottled: "retry", safetyMarginMs: 20 });
    sim.control.addFault({ route: "POST /v1/links", kind: "rate-limit", retryAfterSeconds: 0, count: 1 });
    const response = await budgetedFetch(budget)(`${sim.baseUrl}/v1/links`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/promo" }),
    });
    expect(response.status).toBe(201);
    expect(arrivals(sim, "/v1/links").map((r) => r.status)).toEqual([429, 201]);
  });

  it("in throw mode, hands the 429 to the caller after pausing", async () => {
    const { sim, budget, headers } = await setup({}, {});
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 2, count: 1 });
    const response = await budgetedFetch(budget)(`${sim.baseUrl}/v1/channels`, { headers });
    expect(response.status).toBe(429);
    await expect(
      budget.acquire({ url: `${sim.baseUrl}/v1/channels` }, { maxWaitMs: 500 }),
    ).rejects.toMatchObject({
      code: "BUDGET_DEADLINE",
    });
  });
});
