import { join } from "node:path";
import { PromoReviewError } from "@promo-review/errors";
import { startSimulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { denoCheck, kvFolder, runDeno } from "../../../testing/deno.ts";
import { MemoryDenoKv } from "../../../testing/memory-deno-kv.ts";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { checkBudgetProperty } from "../test/support/budget-property.js";
import { createRateBudget } from "./budget.js";
import { DENO_KV_MAX_ADMISSIONS, type DenoKvLike, denoKvBudgetStore } from "./deno.js";
import type { WindowSpec } from "./rules.js";

const PACKAGE_DIR = join(import.meta.dirname, "..");
const SHARED: WindowSpec = { id: "shared", rule: "shared", limit: 3, windowMs: 60_000 };
const folder = kvFolder();
afterAll(() => folder.remove());

describe("Deno KV budget store in the real deno: three processes share one budget against the simulator", () => {
  it("sends every request without a 429, and never more than the limit in any window", async () => {
    const limit = 5;
    const windowMs = 1000;
    const sim = await startSimulator({ rateLimitWindowMs: windowMs, mainApiLimit: limit });
    try {
      const input = JSON.stringify({
        baseUrl: sim.baseUrl,
        apiKey: sim.apiKey,
        userId: sim.externalUserId,
        limit,
        windowMs,
        requests: 6,
      });
      const file = folder.file("burst");
      const runs = (await Promise.all(
        [1, 2, 3].map(() =>
          runDeno({
            packageDir: PACKAGE_DIR,
            script: "deno/budget-burst.ts",
            args: [file, input],
            dir: folder.dir,
            timeoutMs: 60_000,
          }),
        ),
      )) as { statuses: number[]; errors: string[] }[];
      expect(runs.flatMap((run) => run.errors)).toEqual([]);
      expect(runs.flatMap((run) => run.statuses)).toEqual(Array(18).fill(200));
      const arrivals = sim.control.requests().filter((r) => r.path === "/v1/channels");
      expect(arrivals.map((r) => r.status)).toEqual(Array(18).fill(200));
      expect(
        maxInAnyWindow(
          arrivals.map((r) => Date.parse(r.time)),
          windowMs,
        ),
      ).toBeLessThanOrEqual(limit);
    } finally {
      await sim.close();
    }
  });
});

describe("Deno KV budget store in the real deno: the memory store's exact rule on real KV files", () => {
  it("answers every sequence of decisions, races, settles, pauses and clock jumps as the memory store does", async () => {
    const seed = fc.readConfigureGlobal().seed;
    const observed = await runDeno({
      packageDir: PACKAGE_DIR,
      script: "deno/budget-property.ts",
      args: [folder.dir, "25", ...(seed === undefined ? [] : [String(seed)])],
      dir: folder.dir,
      timeoutMs: 60_000,
    });
    expect(observed).toEqual({ propertyRuns: 25 });
  });
});

describe("Deno KV budget store: the same property in Node, over an in-memory KV stand-in", () => {
  it("answers every sequence as the memory store does", async () => {
    await checkBudgetProperty({
      numRuns: 200,
      openKv: async () => ({ kv: new MemoryDenoKv(), close: () => {} }),
    });
  });
});

describe("Deno KV budget store: one KV value per key, bounded", () => {
  it("refuses windows that together allow more admissions than one KV value holds", async () => {
    const store = denoKvBudgetStore(new MemoryDenoKv());
    const big: WindowSpec = { id: "big", rule: "big", limit: DENO_KV_MAX_ADMISSIONS + 1, windowMs: 1000 };
    await expect(store.take("k", [big])).rejects.toThrow(RangeError);
  });

  it("lets KV expire a key's state once nothing in it counts, and starts afresh on a value it did not write", async () => {
    let clock = 0;
    const kv = new MemoryDenoKv({ now: () => clock });
    const store = denoKvBudgetStore(kv, { now: () => clock });
    await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
    clock += 60_001;
    kv.purge();
    expect(kv.size).toBe(0);
    await kv.atomic().set(["promo-review", "rate-budget", "k"], "not a budget").commit();
    await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
  });
});

describe("Deno KV budget store: when KV does not answer", () => {
  it("fails closed by default: a retryable BUDGET_STORE_UNAVAILABLE at the deadline, fast while KV stays down", async () => {
    const kv = new MemoryDenoKv();
    kv.delay = 500;
    const errors: unknown[] = [];
    const store = denoKvBudgetStore(kv, { timeoutMs: 50, onError: (e) => errors.push(e) });
    // The budget's key is the one the later calls use: the store remembers an outage per key.
    const budget = createRateBudget({ baseUrl: "http://127.0.0.1:9", store, keyId: "k" });
    const error = (await budget
      .acquire({ url: "http://127.0.0.1:9/v1/channels" })
      .catch((e: unknown) => e)) as PromoReviewError;
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error).toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE", retryable: true });
    expect(error.message).toContain("(Deno KV)");
    expect(String((error.cause as Error).message)).toContain("within 50 ms");
    // Within recheckMs the store does not ask again: the same refusal, no second wait.
    await expect(store.pause("k", 1000)).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    await store.settle?.("k", [SHARED], "t");
    expect(errors).toHaveLength(2);
    budget.close();
  });

  it("fails open when asked: this process's own budget, still within the limits", async () => {
    const kv = new MemoryDenoKv();
    kv.failing = new Error("KV is down");
    const store = denoKvBudgetStore(kv, { whenUnavailable: "open", timeoutMs: 200, recheckMs: 0 });
    const two: WindowSpec = { id: "s", rule: "s", limit: 2, windowMs: 60_000 };
    await expect(store.take("k", [two], "t1")).resolves.toEqual({ ok: true });
    await store.settle?.("k", [two], "t1");
    await expect(store.take("k", [two])).resolves.toEqual({ ok: true });
    await expect(store.take("k", [two])).resolves.toMatchObject({ ok: false, full: ["s"] });
    await store.pause("k", 1000);
    await expect(store.take("k", [two])).resolves.toMatchObject({ ok: false, paused: true });
    kv.failing = undefined;
    await expect(store.take("k", [two])).resolves.toEqual({ ok: true });
  });

  it("gives up after maxAttempts decisions in a row lost to concurrent changes", async () => {
    const kv = new MemoryDenoKv();
    // Every commit meets a key changed since it was read.
    const contended: DenoKvLike = {
      get: (key) => kv.get(key),
      atomic: () => {
        const op = kv.atomic();
        op.commit = async () => ({ ok: false });
        return op;
      },
    };
    const store = denoKvBudgetStore(contended, { maxAttempts: 3, timeoutMs: 5_000 });
    const error = (await Promise.resolve(store.take("k", [SHARED])).catch(
      (e: unknown) => e,
    )) as PromoReviewError;
    expect(error).toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    expect(String((error.cause as Error).message)).toContain("3 attempts");
  });

  it("refuses options no store can keep", () => {
    const kv = new MemoryDenoKv();
    for (const timeoutMs of [0, Number.NaN, 2 ** 31])
      expect(() => denoKvBudgetStore(kv, { timeoutMs })).toThrow(RangeError);
    for (const maxAttempts of [0, 1.5])
      expect(() => denoKvBudgetStore(kv, { maxAttempts })).toThrow(RangeError);
  });
});

describe("Deno KV budget store: typed by shape, and a real Deno.Kv fits", () => {
  it("passes deno check against Deno's own declarations with a Deno.Kv and every kind of key part", async () => {
    await denoCheck({
      packageDir: PACKAGE_DIR,
      script: "deno/types-fit.ts",
      dir: folder.dir,
      timeoutMs: 60_000,
    });
  });
});
