import { isPromoReviewError } from "@promo-review/errors";
import { describe, expect, it, vi } from "vitest";
import { flakyAdapter } from "../test/support/flaky-adapter.js";
import { sharedStore } from "./shared-store.js";
import type { StoreWindow } from "./window.js";

const WINDOWS: StoreWindow[] = [{ id: "minute", limit: 2, windowMs: 60_000 }];

/** The error `promise` rejects with (the test fails if it resolves). */
async function failureOf(answer: unknown): Promise<unknown> {
  return Promise.resolve(answer).then(
    (value) => {
      throw new Error(`expected a failure, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

describe("the backend answers: every call goes through to the adapter", () => {
  it("takes by the exact window, claims once, keeps values", async () => {
    const adapter = flakyAdapter();
    const store = sharedStore(adapter);
    expect(store.where).toBe("the test backend");
    expect(await store.take("k", WINDOWS)).toEqual({ ok: true });
    expect(await store.take("k", WINDOWS, "t-1")).toEqual({ ok: true });
    expect(await store.take("k", WINDOWS)).toMatchObject({ ok: false, full: ["minute"], paused: false });
    await store.settle("k", WINDOWS, "t-1");
    await store.pause("p", 5000);
    expect(await store.take("p", WINDOWS)).toMatchObject({ ok: false, paused: true });
    expect(await store.claim("msg_1", 60_000)).toBe(true);
    expect(await store.claim("msg_1", 60_000)).toBe(false);
    await store.set("f", "record", 60_000);
    expect(await store.get("f")).toBe("record");
    await store.delete("f");
    expect(await store.get("f")).toBeUndefined();
  });

  it("a release removes this store's own claim only (another's that replaced an expired one stays)", async () => {
    const adapter = flakyAdapter();
    const store = sharedStore(adapter);
    expect(await store.claim("msg_1", 60_000)).toBe(true);
    await store.release("msg_1");
    expect(adapter.claims.has("msg_1")).toBe(false);
    // A key this store never claimed: released whoever holds it (a handler's failure must let the retry in).
    adapter.claims.set("msg_2", { token: "another", expiresAt: Date.now() + 60_000 });
    await store.release("msg_2");
    expect(adapter.calls.filter((c) => c.startsWith("unclaim"))).toEqual(["unclaim own", "unclaim any"]);
  });
});

describe("every call has a deadline: a backend that does not answer costs a call timeoutMs", () => {
  it("a stalled call fails closed with the code of what it served, retryable", async () => {
    const adapter = flakyAdapter();
    adapter.mode = "stalled";
    const store = sharedStore(adapter, { timeoutMs: 20, recheckMs: 0 });
    const codes = [];
    for (const call of [() => store.take("k", WINDOWS), () => store.claim("c", 1000), () => store.get("v")]) {
      const error = await failureOf(call());
      expect(isPromoReviewError(error) && error.retryable).toBe(true);
      codes.push(isPromoReviewError(error) && error.code);
      expect(String((error as Error).cause)).toContain("did not answer within 20 ms");
    }
    expect(codes).toEqual(["BUDGET_STORE_UNAVAILABLE", "REPLAY_STORE_FAILED", "RESUME_STORE_UNAVAILABLE"]);
    adapter.letGo();
  });

  it("the adapter is told the deadline: its signal fires and notAfter is when", async () => {
    const adapter = flakyAdapter();
    const seen: { aborted: boolean; notAfter: number }[] = [];
    const store = sharedStore(
      {
        ...adapter,
        get: (_key, call) =>
          new Promise((_, reject) =>
            call.signal.addEventListener("abort", () => {
              seen.push({ aborted: call.signal.aborted, notAfter: call.notAfter });
              reject(call.signal.reason);
            }),
          ),
      },
      { timeoutMs: 20 },
    );
    const before = Date.now();
    await failureOf(store.get("v"));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.notAfter).toBeGreaterThanOrEqual(before + 20);
  });

  it("a claim or a take answered after its deadline is undone, and only that one", async () => {
    const adapter = flakyAdapter();
    adapter.mode = "stalled";
    const store = sharedStore(adapter, { timeoutMs: 20 });
    await failureOf(store.claim("msg_1", 60_000));
    await failureOf(store.take("k", WINDOWS, "ticket-1"));
    adapter.mode = "up";
    adapter.letGo();
    await vi.waitFor(() => expect(adapter.calls).toContain("unclaim own"));
    await vi.waitFor(() => expect(adapter.calls).toContain("forget k ticket-1"));
    expect(adapter.claims.has("msg_1")).toBe(false);
  });

  it("timeoutMs must be a positive number below 2^31", () => {
    for (const timeoutMs of [0, -1, 2 ** 31, Number.NaN]) {
      expect(() => sharedStore(flakyAdapter(), { timeoutMs })).toThrow(RangeError);
    }
  });
});

describe("a key found unreachable fails at once until the backend is back", () => {
  it("later calls for the key do not wait; one probe at a time asks, and its answer reopens the key", async () => {
    const adapter = flakyAdapter({ probe: true });
    adapter.mode = "failing";
    const errors: unknown[] = [];
    const store = sharedStore(adapter, {
      timeoutMs: 1000,
      recheckMs: 60_000,
      onError: (e) => errors.push(e),
    });
    await failureOf(store.get("v"));
    expect(adapter.calls).toEqual(["get", "probe value v"]);
    // Known down, probe failed, recheck far away: the next call fails without asking.
    await failureOf(store.get("v"));
    expect(adapter.calls).toEqual(["get", "probe value v"]);
    expect(errors).toHaveLength(1);
    // Another key is asked on its own (a Redis Cluster's other masters carry on).
    adapter.mode = "up";
    expect(await store.get("w")).toBeUndefined();
    expect(adapter.calls).toEqual(["get", "probe value v", "get"]);
  });

  it("a probe held until the backend answers lets the next call through once it does", async () => {
    const adapter = flakyAdapter({ probe: true });
    adapter.mode = "stalled";
    const store = sharedStore(adapter, { timeoutMs: 20, recheckMs: 0 });
    await failureOf(store.claim("c", 1000));
    // The probe that is out holds further calls off the backend.
    await failureOf(store.claim("c", 1000));
    expect(adapter.calls.filter((c) => c === "claim")).toHaveLength(1);
    adapter.mode = "up";
    adapter.letGo();
    await vi.waitFor(async () => expect(await store.claim("c", 1000)).toBe(true));
  });

  it("without probes, the first call recheckMs after the failure asks again", async () => {
    const adapter = flakyAdapter();
    adapter.mode = "failing";
    const store = sharedStore(adapter, { recheckMs: 0 });
    await failureOf(store.set("v", "x", 1000));
    adapter.mode = "up";
    await store.set("v", "x", 1000);
    expect(await store.get("v")).toBe("x");
  });
});

describe("failing open: the process's own memory serves until the backend answers", () => {
  it("the budget keeps to the limits on its own, claims and values work in memory", async () => {
    const adapter = flakyAdapter();
    adapter.mode = "failing";
    const errors: unknown[] = [];
    const store = sharedStore(adapter, {
      whenUnavailable: "open",
      recheckMs: 0,
      onError: (e) => errors.push(e),
    });
    expect(await store.take("k", WINDOWS, "t-1")).toEqual({ ok: true });
    await store.settle("k", WINDOWS, "t-1");
    expect(await store.take("k", WINDOWS)).toEqual({ ok: true });
    expect(await store.take("k", WINDOWS)).toMatchObject({ ok: false, full: ["minute"] });
    await store.pause("k", 1000);
    expect(await store.claim("msg_1", 60_000)).toBe(true);
    expect(await store.claim("msg_1", 60_000)).toBe(false);
    await store.release("msg_1");
    expect(await store.claim("msg_1", 60_000)).toBe(true);
    await store.set("f", "r", 60_000);
    expect(await store.get("f")).toBe("r");
    await store.delete("f");
    expect(await store.get("f")).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
  });

  it("failing closed, a settle that fails is reported, never thrown (the response is already in)", async () => {
    const adapter = flakyAdapter();
    adapter.mode = "failing";
    const errors: unknown[] = [];
    const store = sharedStore(adapter, { recheckMs: 0, onError: (e) => errors.push(e) });
    await store.settle("k", WINDOWS, "t-1");
    expect(errors.length).toBeGreaterThan(0);
    await failureOf(store.pause("k", 1000));
    await failureOf(store.release("msg_1"));
    await failureOf(store.delete("f"));
    await failureOf(store.set("f", "x", 1));
  });

  it("an adapter that throws synchronously fails the call like one that rejects", async () => {
    const adapter = flakyAdapter();
    const store = sharedStore({
      ...adapter,
      get: () => {
        throw new Error("bad client");
      },
    });
    const error = await failureOf(store.get("v"));
    expect(isPromoReviewError(error) && error.code).toBe("RESUME_STORE_UNAVAILABLE");
  });
});

describe("a swap is never served from memory: it fails closed whatever whenUnavailable says", () => {
  it("swaps through to the adapter while it answers", async () => {
    const store = sharedStore(flakyAdapter(), { whenUnavailable: "open" });
    expect(await store.swap!("j", undefined, "one", 60_000)).toBeUndefined();
    expect(await store.swap!("j", "one", "two", 60_000)).toBe("one");
    expect(await store.get("j")).toBe("two");
  });

  for (const whenUnavailable of ["closed", "open"] as const) {
    it(`a failing backend fails the swap with STORE_SWAP_UNAVAILABLE (${whenUnavailable})`, async () => {
      const adapter = flakyAdapter();
      adapter.mode = "failing";
      const store = sharedStore(adapter, { whenUnavailable, timeoutMs: 50, recheckMs: 0 });
      const error = await failureOf(store.swap!("j", undefined, "one", 60_000));
      expect(isPromoReviewError(error) && [error.code, error.retryable]).toEqual([
        "STORE_SWAP_UNAVAILABLE",
        true,
      ]);
    });
  }

  it("an adapter without swap is refused clearly", async () => {
    const { swap: _, ...adapter } = flakyAdapter();
    const error = await failureOf(sharedStore(adapter).swap!("j", undefined, "one", 60_000));
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/has no swap/);
  });
});
