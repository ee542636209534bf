/**
 * The Upstash store over `@upstash/redis` 1.39, against the local Upstash REST server
 * (testing/upstash-rest.ts) in front of a real redis-server on 127.0.0.1: the Redis store's
 * guarantees (the exact budget, once-only claims, resume points, a deadline on every call), and the
 * round trips each costs.
 */
import { isPromoReviewError } from "@promo-review/errors";
import { Redis } from "@upstash/redis";
import fc from "fast-check";
import { Redis as IORedis } from "ioredis";
import { describe, expect, it } from "vitest";
import { redisAvailable } from "../../../testing/redis-server.ts";
import { describeSwap } from "../../../testing/store-swap.ts";
import { type UpstashRest, useUpstashRest } from "../../../testing/upstash-rest.ts";
import { STORE_CODES } from "./codes.js";
import { redisStore } from "./redis.js";
import { type UpstashStoreOptions, upstashStore } from "./upstash.js";
import type { StoreWindow } from "./window.js";

/**
 * Until `store` has answered one take: a store's first call (its connection, the script's load) may
 * miss a short deadline on a loaded machine, and the faults under test must come after a healthy call.
 */
async function warm(store: ReturnType<typeof upstashStore>, windows: StoreWindow[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.take("warm", windows);
      return;
    } catch (error) {
      if (attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A client of `rest` as a user builds one. */
function clientOf(rest: UpstashRest): Redis {
  return new Redis({ url: rest.url, token: rest.token, enableTelemetry: false });
}

/** The error `promise` rejects with (the test fails if it resolves). */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

describe.runIf(redisAvailable("store Upstash"))("upstashStore over @upstash/redis", () => {
  const suite = useUpstashRest();
  /** A store of its own client; stores made with one `prefix` share their state. */
  const storeOf = (prefix: string, options: UpstashStoreOptions = {}) =>
    upstashStore(clientOf(suite.rest()), {
      prefixes: { window: prefix, claim: prefix, value: prefix },
      ...options,
    });

  describe("the exact budget: never more than `limit` in any window, across every store sharing it", () => {
    it("admits exactly `limit` of concurrent takes from 4 stores, for any limit and load", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 10 }),
          async (limit, each) => {
            const prefix = suite.prefix();
            // The rule is exactness, not the deadline (its own describe below): up to 40 takes at once
            // through the local REST server may need more than the default 1 s each on a loaded machine.
            const stores = Array.from({ length: 4 }, () => storeOf(prefix, { timeoutMs: 10_000 }));
            const windows: StoreWindow[] = [{ id: "minute", limit, windowMs: 60_000 }];
            const decisions = await Promise.all(
              stores.flatMap((store) => Array.from({ length: each }, () => store.take("key", windows))),
            );
            expect(decisions.filter((d) => d.ok)).toHaveLength(Math.min(limit, 4 * each));
          },
        ),
        { numRuns: 12 },
      );
    });

    it("a refusal says which window is full and how long to wait; the room comes back then", async () => {
      // Three takes, each answered within its 3 s deadline or failed, always fit in a 10 s window:
      // the refusal does not depend on how fast the machine is.
      const store = storeOf(suite.prefix(), { timeoutMs: 3_000 });
      const windows: StoreWindow[] = [
        { id: "short", limit: 2, windowMs: 10_000 },
        { id: "minute", limit: 10, windowMs: 60_000 },
      ];
      expect(await store.take("key", windows)).toEqual({ ok: true });
      expect(await store.take("key", windows)).toEqual({ ok: true });
      const refused = await store.take("key", windows);
      if (refused.ok) throw new Error("a third take in the window was admitted");
      expect(refused.full).toEqual(["short"]);
      expect(refused.paused).toBe(false);
      expect(refused.waitMs).toBeGreaterThan(0);
      expect(refused.waitMs).toBeLessThanOrEqual(10_000);
      await new Promise((resolve) => setTimeout(resolve, refused.waitMs + 20));
      expect(await store.take("key", windows)).toEqual({ ok: true });
    });

    it("a pause after a 429 stops every store sharing the key", async () => {
      const prefix = suite.prefix();
      const windows: StoreWindow[] = [{ id: "minute", limit: 10, windowMs: 60_000 }];
      await storeOf(prefix).pause("key", 60_000);
      const other = await storeOf(prefix).take("key", windows);
      expect(other).toMatchObject({ ok: false, paused: true, full: [] });
    });

    it("a settled ticket counts from its settling: the room comes back a window after it", async () => {
      // Settle and the next take, each within its 3 s deadline, always fall in a 10 s window.
      const store = storeOf(suite.prefix(), { timeoutMs: 3_000 });
      const windows: StoreWindow[] = [{ id: "w", limit: 1, windowMs: 10_000, holdMs: 30_000 }];
      expect(await store.take("key", windows, "ticket-1")).toEqual({ ok: true });
      // Unsettled, the ticket counts from its decision plus the hold: never waits over a window.
      const held = await store.take("key", windows);
      expect(held.ok).toBe(false);
      await store.settle("key", windows, "ticket-1");
      const settled = await store.take("key", windows);
      if (settled.ok) throw new Error("admitted while the settled ticket is in the window");
      expect(settled.waitMs).toBeLessThanOrEqual(10_000);
    });
  });

  describe("claims: of concurrent claims of one key, exactly one wins; a release lets the next in", () => {
    it("100 parallel claims over 2 stores: one wins", async () => {
      const prefix = suite.prefix();
      const stores = [storeOf(prefix), storeOf(prefix)];
      const won = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stores[i % 2]!.claim("msg_1", 60_000)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it("a release removes the claim; an expired claim lets the next in", async () => {
      const prefix = suite.prefix();
      const [one, two] = [storeOf(prefix), storeOf(prefix)];
      expect(await one.claim("msg_1", 60_000)).toBe(true);
      await one.release("msg_1");
      expect(await two.claim("msg_1", 60_000)).toBe(true);
      expect(await one.claim("msg_2", 50)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await two.claim("msg_2", 60_000)).toBe(true);
    });
  });

  describe("values: a value with expiry, read back exactly as written", () => {
    it("keeps any string as it is (JSON, numbers and the client's own markers are not parsed)", async () => {
      const store = storeOf(suite.prefix());
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.json(), fc.string(), fc.constant("123"), fc.constant("=x")),
          async (value) => {
            await store.set("v", value, 60_000);
            expect(await store.get("v")).toBe(value);
          },
        ),
        { numRuns: 40 },
      );
      await store.delete("v");
      expect(await store.get("v")).toBeUndefined();
    });

    it("a value expires ttlMs after its write", async () => {
      const store = storeOf(suite.prefix());
      await store.set("v", "record", 50);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.get("v")).toBeUndefined();
    });
  });

  describeSwap("Upstash", {
    stores: () => {
      const prefix = suite.prefix();
      return [storeOf(prefix), storeOf(prefix)];
    },
    pass: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms + 30)),
  });

  describe("one state with the Redis store: the same keys and the same budget script", () => {
    it("shares the budget, the claims and the values with redisStore on the same database", async () => {
      const prefix = suite.prefix();
      const prefixes = { window: prefix, claim: prefix, value: prefix };
      const tcp = new IORedis({ host: "127.0.0.1", port: suite.redis().port, maxRetriesPerRequest: 1 });
      try {
        const redis = redisStore(tcp, { prefixes });
        const upstash = storeOf(prefix);
        const windows: StoreWindow[] = [{ id: "minute", limit: 4, windowMs: 60_000 }];
        const decisions = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? redis : upstash).take("key", windows)),
        );
        expect(decisions.filter((d) => d.ok)).toHaveLength(4);
        expect(await redis.claim("msg", 60_000)).toBe(true);
        expect(await upstash.claim("msg", 60_000)).toBe(false);
        const record = JSON.stringify({ uploadId: "u_1", maxChunkSize: 5, fileSize: 10 });
        await upstash.set("upload", record, 60_000);
        expect(await redis.get("upload")).toBe(record);
        await redis.set("upload", "12", 60_000);
        expect(await upstash.get("upload")).toBe("12");
      } finally {
        tcp.disconnect();
      }
    });
  });

  describe("round trips: one per call; a script costs one more the first time a server sees it", () => {
    it("counts them", async () => {
      const rest = suite.rest();
      const store = storeOf(suite.prefix());
      const windows: StoreWindow[] = [{ id: "w", limit: 100, windowMs: 60_000 }];
      const cost = async (call: () => unknown) => {
        rest.resetCounts();
        await call();
        return rest.roundTrips.length;
      };
      await store.take("warm", windows);
      await store.claim("warm", 60_000);
      await store.get("warm");
      expect(await cost(() => store.take("key", windows))).toBe(1);
      expect(await cost(() => store.settle("key", windows, "t"))).toBe(1);
      expect(await cost(() => store.pause("key", 1))).toBe(1);
      expect(await cost(() => store.claim("c", 60_000))).toBe(1);
      expect(await cost(() => store.release("c"))).toBe(1);
      expect(await cost(() => store.set("v", "x", 60_000))).toBe(1);
      expect(await cost(() => store.get("v"))).toBe(1);
      expect(await cost(() => store.delete("v"))).toBe(1);
    });

    it("none for a take that a refusal this process saw still answers", async () => {
      const rest = suite.rest();
      const store = storeOf(suite.prefix());
      const windows: StoreWindow[] = [{ id: "w", limit: 1, windowMs: 60_000 }];
      expect(await store.take("key", windows)).toEqual({ ok: true });
      expect(await store.take("key", windows)).toMatchObject({ ok: false, full: ["w"] });
      rest.resetCounts();
      expect(await store.take("key", windows)).toMatchObject({ ok: false, full: ["w"] });
      expect(rest.roundTrips).toHaveLength(0);
    });
  });

  describe("a REST server that stalls or answers 5xx costs a call no more than timeoutMs, closed or open", () => {
    const TIMEOUT_MS = 300;
    const windows: StoreWindow[] = [{ id: "w", limit: 5, windowMs: 60_000 }];

    for (const fault of ["stall", "fail"] as const) {
      it(`${fault}: closed, each call fails with the code of what it served, retryable`, async () => {
        const rest = suite.rest();
        const store = storeOf(suite.prefix(), { timeoutMs: TIMEOUT_MS, recheckMs: 50 });
        await warm(store, windows);
        if (fault === "stall") rest.stall();
        else rest.fail(503);
        const calls: [string, () => Promise<unknown>][] = [
          [STORE_CODES.window, () => Promise.resolve(store.take("key", windows))],
          [STORE_CODES.claim, () => store.claim("msg", 60_000)],
          [STORE_CODES.value, () => store.get("upload")],
        ];
        for (const [code, call] of calls) {
          // A stalled server never answers: that the call ends at all, with the deadline as its cause,
          // is the bound (no wall-clock assertion, which a loaded machine would break).
          const error = await failureOf(call());
          expect(isPromoReviewError(error) && error.code).toBe(code);
          expect(isPromoReviewError(error) && error.retryable).toBe(true);
          if (fault === "stall") expect(String((error as Error).cause)).toMatch(/within 300 ms|unreachable/);
        }
      });

      it(`${fault}: open, each call is served by this process's memory at once`, async () => {
        const rest = suite.rest();
        const store = storeOf(suite.prefix(), { timeoutMs: TIMEOUT_MS, whenUnavailable: "open" });
        await warm(store, windows);
        if (fault === "stall") rest.stall();
        else rest.fail(500);
        expect(await store.take("key", windows)).toEqual({ ok: true });
        expect(await store.claim("msg", 60_000)).toBe(true);
        expect(await store.claim("msg", 60_000)).toBe(false);
        expect(await store.get("upload")).toBeUndefined();
      });
    }

    for (const late of ["in-order", "reversed"] as const) {
      it(`a claim that missed its deadline never stays, whichever of it and its undo lands first (${late})`, async () => {
        const rest = suite.rest();
        const prefix = suite.prefix();
        const store = storeOf(prefix, { timeoutMs: TIMEOUT_MS });
        await store.claim("warm", 60_000);
        rest.stall();
        rest.resetCounts();
        const error = await failureOf(store.claim("msg_late", 60_000));
        expect(isPromoReviewError(error) && error.code).toBe(STORE_CODES.claim);
        // The undo follows the failed claim; both are held until the server runs them late.
        for (let waited = 0; rest.roundTrips.length < 2; waited += 5) {
          if (waited > 5000) throw new Error("the undo of the late claim never reached the server");
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await rest.heal(late);
        // The sender's retry, to any receiver, is accepted: the late claim did not stay.
        expect(await storeOf(prefix).claim("msg_late", 60_000)).toBe(true);
      });
    }
  });
});
