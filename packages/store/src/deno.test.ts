import { describe, expect, it } from "vitest";
import { MemoryDenoKv } from "../../../testing/memory-deno-kv.ts";
import { describeSwap } from "../../../testing/store-swap.ts";
import { DENO_KV_MAX_ADMISSIONS, denoKvStore } from "./deno.js";
import type { StoreWindow } from "./window.js";

// The real deno runs these stores in rate-budget's and webhook-verify's deno suites (their old names
// are aliases over this one); here the in-memory stand-in with KV's semantics checks every path.
const WINDOW: StoreWindow = { id: "minute", limit: 5, windowMs: 60_000 };

describe("Deno KV: one store for the budget, the claims and the resume points", () => {
  it("never admits more than the limit across isolates racing on one key, and a pause stops them all", async () => {
    const kv = new MemoryDenoKv();
    const [a, b] = [denoKvStore(kv), denoKvStore(kv)];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).take("key", [WINDOW], i % 3 ? undefined : `t${i}`),
      ),
    );
    expect(answers.filter((d) => d.ok)).toHaveLength(5);
    await a.settle("key", [WINDOW], "t0");
    await a.pause("key", 5000);
    expect(await b.take("key", [WINDOW])).toMatchObject({ ok: false, paused: true });
  });

  it("claims once across isolates; an expired claim KV still holds counts as free; release frees the id", async () => {
    let now = 1_000;
    const kv = new MemoryDenoKv({ now: () => now });
    const [a, b] = [denoKvStore(kv, { now: () => now }), denoKvStore(kv, { now: () => now })];
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim("msg_1", 1000)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    now += 1000;
    expect(await b.claim("msg_1", 1000)).toBe(true);
    await b.release("msg_1");
    expect(await a.claim("msg_1", 1000)).toBe(true);
  });

  it("keeps a value until its expiry or its deletion", async () => {
    let now = 1_000;
    const kv = new MemoryDenoKv({ now: () => now });
    const store = denoKvStore(kv, { now: () => now });
    expect(await store.get("f")).toBeUndefined();
    await store.set("f", "record", 1000);
    expect(await store.get("f")).toBe("record");
    now += 1000;
    expect(await store.get("f")).toBeUndefined();
    await store.set("f", "again", 1000);
    await store.delete("f");
    expect(await store.get("f")).toBeUndefined();
  });

  it("refuses windows one KV value cannot hold, and a bad maxAttempts, as the caller's mistakes", async () => {
    const store = denoKvStore(new MemoryDenoKv());
    await expect(
      store.take("k", [{ id: "w", limit: DENO_KV_MAX_ADMISSIONS + 1, windowMs: 1000 }]),
    ).rejects.toThrow(RangeError);
    expect(() => denoKvStore(new MemoryDenoKv(), { maxAttempts: 0 })).toThrow(RangeError);
  });

  it("a KV that keeps failing fails every call closed, with the code of what it served", async () => {
    const kv = new MemoryDenoKv();
    kv.failing = new Error("database is locked");
    const store = denoKvStore(kv, { timeoutMs: 200, recheckMs: 0 });
    await expect(store.take("k", [WINDOW])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    await expect(store.claim("m", 1000)).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });
    await expect(store.set("f", "x", 1000)).rejects.toMatchObject({ code: "RESUME_STORE_UNAVAILABLE" });
  });
});

{
  // KV keeps an expired entry readable until its sweep: the store judges expiry by its own clock.
  let now = 1_000;
  describeSwap("Deno KV", {
    stores: () => {
      const kv = new MemoryDenoKv({ now: () => now });
      return [denoKvStore(kv, { now: () => now }), denoKvStore(kv, { now: () => now })];
    },
    pass: async (ms) => {
      now += ms + 1;
    },
  });
}
