import { PromoReviewError } from "@promo-review/errors";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { freePort, redisAvailable, startRedis, useRedis } from "../../../testing/redis-server.ts";
import { createRateBudget } from "./budget.js";
import { type RedisScriptClient, RedisStore } from "./redis.js";
import type { WindowSpec } from "./rules.js";

const BASE = "http://127.0.0.1:1234";
const GET = { method: "GET", url: `${BASE}/v1/channels` };
const SHARED: WindowSpec = { id: "shared", rule: "shared", limit: 3, windowMs: 60_000 };
const LINKS: WindowSpec = { id: "links", rule: "links", limit: 1, windowMs: 60_000 };

describe.runIf(redisAvailable("rate-budget Redis store"))("Redis store (real redis-server)", () => {
  const { connect, prefix } = useRedis(Redis);

  describe("one atomic script per decision, across every window that applies", () => {
    it("takes from every window or from none", async () => {
      const store = new RedisStore({ client: connect(), prefix: prefix() });
      const both = [SHARED, LINKS];
      await expect(store.take("k", both)).resolves.toEqual({ ok: true });
      const refused = await store.take("k", both);
      expect(refused).toMatchObject({ ok: false, paused: false, full: ["links"] });
      expect(refused.ok === false && refused.waitMs).toBeGreaterThan(59_000);
      // The refused request took nothing from the shared window: two more fit, then none.
      await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [SHARED])).resolves.toMatchObject({ ok: false, full: ["shared"] });
    });

    it("never admits more than the limit under concurrent decisions from many connections", async () => {
      const p = prefix();
      const stores = Array.from({ length: 6 }, () => new RedisStore({ client: connect(), prefix: p }));
      const window: WindowSpec = { id: "shared", rule: "shared", limit: 60, windowMs: 60_000 };
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) => stores[i % stores.length]!.take("k", [window])),
      );
      expect(answers.filter((a) => a.ok).length).toBe(60);
    });

    it("keeps one key's entries apart from another's, and lets idle windows expire", async () => {
      const c = connect();
      const p = prefix();
      const store = new RedisStore({ client: c, prefix: p });
      const small: WindowSpec = { id: "w", rule: "w", limit: 1, windowMs: 5000 };
      await store.take("a", [small]);
      await expect(store.take("b", [small])).resolves.toEqual({ ok: true });
      const ttl = await c.pttl(`${p}{a}:w:w`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5001);
    });

    it("settles a ticket: the admission counts from the settle, on Redis's clock", async () => {
      const c = connect();
      const p = prefix();
      const store = new RedisStore({ client: c, prefix: p });
      const w: WindowSpec = { id: "t", rule: "t", limit: 1, windowMs: 60_000, holdMs: 5000 };
      await expect(store.take("k", [w], "ticket-1")).resolves.toEqual({ ok: true });
      const before = Number(await c.zscore(`${p}{k}:w:t`, "ticket-1"));
      const refused = await store.take("k", [w]);
      // Unsettled: counted as arriving up to holdMs later, but never reported as over a window away.
      expect(refused.ok === false && refused.waitMs).toBe(60_000);
      await store.settle("k", [w], "ticket-1");
      const after = Number(await c.zscore(`${p}{k}:w:t`, "ticket-1"));
      expect(after).toBeLessThan(before);
      expect(before - after).toBeGreaterThan(4000);
      // An unknown ticket is ignored.
      await store.settle("k", [w], "no-such-ticket");
      expect(await c.zcard(`${p}{k}:w:t`)).toBe(1);
    });

    it("loads the script again after SCRIPT FLUSH (NOSCRIPT falls back to EVAL)", async () => {
      const c = connect();
      const store = new RedisStore({ client: c, prefix: prefix() });
      await store.take("k", [SHARED]);
      await c.script("FLUSH");
      await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
    });
  });

  describe("pause on 429 is shared by every process using the key", () => {
    it("a pause learned by one budget holds another budget's requests (throttled, source store)", async () => {
      const p = prefix();
      const aStore = new RedisStore({ client: connect(), prefix: p });
      // The budget writes the pause without awaiting it: the test awaits that very write (a blind
      // sleep was too short on a loaded machine).
      let written: Promise<unknown> | undefined;
      const pause = aStore.pause.bind(aStore);
      aStore.pause = (key, ms) => {
        written = Promise.resolve(pause(key, ms));
        return written as ReturnType<typeof pause>;
      };
      const a = createRateBudget({ baseUrl: BASE, keyId: "shared-key", store: aStore });
      const bStore = new RedisStore({ client: connect(), prefix: p });
      const b = createRateBudget({ baseUrl: BASE, keyId: "shared-key", store: bStore });
      const throttled: unknown[] = [];
      b.on("throttled", (e) => throttled.push(e.source));
      await a.learn(new Response("", { status: 429, headers: { "Retry-After": "300" } }));
      await written;
      const decision = await bStore.take("shared-key", [SHARED]);
      expect(decision).toMatchObject({ ok: false, paused: true, full: [] });
      expect(decision.ok === false && decision.waitMs).toBeGreaterThan(290_000);
      const waiting = b.acquire(GET, { maxWaitMs: 1000 });
      await expect(waiting).rejects.toMatchObject({ code: "BUDGET_DEADLINE" });
      expect(throttled).toEqual(["store"]);
      // A shorter pause does not cut the longer one.
      await bStore.pause("shared-key", 10);
      const still = await bStore.take("shared-key", [SHARED]);
      expect(still.ok === false && still.waitMs).toBeGreaterThan(290_000);
      a.close();
      b.close();
    });
  });

  describe("when Redis is unreachable (the server is stopped)", () => {
    it("fails closed by default: a retryable BUDGET_STORE_UNAVAILABLE, fast while Redis stays down", async () => {
      const own = await startRedis();
      const errors: unknown[] = [];
      const c = connect(own.port);
      const store = new RedisStore({
        client: c,
        prefix: prefix(),
        timeoutMs: 300,
        onError: (e) => errors.push(e),
      });
      const budget = createRateBudget({ baseUrl: BASE, store });
      await budget.acquire(GET);
      await own.stop();
      const error = (await budget.acquire(GET).catch((e: unknown) => e)) as PromoReviewError;
      expect(error).toBeInstanceOf(PromoReviewError);
      expect(error.code).toBe("BUDGET_STORE_UNAVAILABLE");
      expect(error.retryable).toBe(true);
      // Within `recheckMs` the store does not ask Redis again: the same refusal, no second timeout.
      await expect(budget.acquire(GET)).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
      expect(errors.length).toBe(1);
      // Settling while Redis is down is reported, never thrown.
      await store.settle("default", [SHARED], "t");
      expect(errors.length).toBe(2);
      budget.close();
    });

    it("fails open when asked: falls back to this process's own budget, still within the limits", async () => {
      const own = await startRedis();
      const c = connect(own.port);
      const errors: unknown[] = [];
      const store = new RedisStore({
        client: c,
        prefix: prefix(),
        whenUnavailable: "open",
        timeoutMs: 300,
        onError: (e) => errors.push(e),
      });
      const two: WindowSpec = { id: "s", rule: "s", limit: 2, windowMs: 60_000 };
      await expect(store.take("k", [two])).resolves.toEqual({ ok: true });
      await own.stop();
      await expect(store.take("k", [two])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [two])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [two])).resolves.toMatchObject({ ok: false, full: ["s"] });
      await store.settle("k", [two], "unknown");
      await store.pause("k", 1000);
      await expect(store.take("k", [two])).resolves.toMatchObject({ ok: false, paused: true });
      expect(errors.length).toBeGreaterThanOrEqual(1);
    });

    it("uses Redis again once it is back", async () => {
      const own = await startRedis();
      const c = connect(own.port);
      const store = new RedisStore({ client: c, prefix: prefix(), timeoutMs: 300, recheckMs: 0 });
      await own.stop();
      await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
      const again = await startRedis(own.port);
      try {
        await c.ping();
        // The probe the store sent while Redis was down has been answered by now, or is in a moment.
        await expect
          .poll(() => store.take("k", [SHARED]).catch((e: unknown) => e), { timeout: 2000 })
          .toEqual({ ok: true });
      } finally {
        await again.stop();
      }
    });

    it("stays typed when the client throws instead of rejecting (the probe included)", async () => {
      const store = new RedisStore({
        client: {
          evalsha: () => Promise.reject(new Error("connection lost")),
          eval: () => {
            throw new Error("connection lost");
          },
        },
        prefix: prefix(),
      });
      await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
      await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    });

    it("refuses an answer that is not the script's", async () => {
      const store = new RedisStore({
        client: { evalsha: async () => "nonsense", eval: async () => "nonsense" },
        prefix: prefix(),
      });
      await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    });
  });

  describe("a decision past its deadline leaves nothing behind in Redis", () => {
    /**
     * `connect()`'s client, each command sent `ms` late (in order), as an offline queue would, and
     * `answered()`, which resolves once every command sent through it has had its answer.
     */
    function late(client: Redis, ms: number): { client: RedisScriptClient; answered(): Promise<void> } {
      const inFlight = new Set<Promise<unknown>>();
      const after = <T>(send: () => Promise<T>): Promise<T> => {
        const sent = new Promise<T>((resolve, reject) => setTimeout(() => send().then(resolve, reject), ms));
        inFlight.add(sent);
        sent.then(
          () => inFlight.delete(sent),
          () => inFlight.delete(sent),
        );
        return sent;
      };
      return {
        client: {
          evalsha: (sha, n, ...args) => after(() => client.evalsha(sha, n, ...args)),
          eval: (script, n, ...args) => after(() => client.eval(script, n, ...args)),
        },
        async answered() {
          // An answer may send another command (a late EVAL after NOSCRIPT): wait until none is left.
          while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        },
      };
    }

    for (const flushed of [false, true]) {
      it(`a take that reaches Redis after its deadline is undone${flushed ? " (script not loaded: no late EVAL)" : ""}`, async () => {
        const c = connect();
        const p = prefix();
        const warm = new RedisStore({ client: c, prefix: p });
        await warm.take("other", [SHARED]);
        if (flushed) await c.script("FLUSH");
        const slow = late(c, 200);
        const store = new RedisStore({ client: slow.client, prefix: p, timeoutMs: 50 });
        await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
        // Once the late take, its undo and any late EVAL have had their answers (a fixed 600 ms sleep
        // assumed they had by then, which a loaded machine does not promise).
        await slow.answered();
        expect(await c.zcard(`${p}{k}:w:shared`)).toBe(0);
      });
    }
  });

  describe("every call has its own deadline (ioredis defaults: 20 retries, an offline queue)", () => {
    /** A client with ioredis's defaults, of a closed port on 127.0.0.1. */
    async function defaultClient(): Promise<Redis> {
      const client = new Redis({ host: "127.0.0.1", port: await freePort() });
      client.on("error", () => {});
      return client;
    }

    it("refuses at the default deadline of 1000 ms, not when ioredis gives up", async () => {
      const client = await defaultClient();
      try {
        const store = new RedisStore({ client, prefix: prefix() });
        const error = (await store.take("k", [SHARED]).catch((e: unknown) => e)) as PromoReviewError;
        expect(error).toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE", retryable: true });
        expect(String((error.cause as Error).message)).toContain("within 1000 ms");
      } finally {
        client.disconnect();
      }
    });

    it("bounds take, pause and settle alike, and fails closed", async () => {
      const client = await defaultClient();
      const errors: unknown[] = [];
      try {
        // A store per call: only the call that finds Redis gone waits for the deadline; later ones fail at once.
        const fresh = () =>
          new RedisStore({ client, prefix: prefix(), timeoutMs: 100, onError: (e) => errors.push(e) });
        const budget = createRateBudget({ baseUrl: BASE, store: fresh() });
        await expect(budget.acquire(GET)).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
        await expect(fresh().pause("k", 1000)).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
        await fresh().settle("k", [SHARED], "t");
        expect(errors.length).toBeGreaterThanOrEqual(3);
        for (const error of errors) expect(String((error as Error).message)).toContain("within 100 ms");
        budget.close();
      } finally {
        client.disconnect();
      }
    });

    it("refuses a deadline that is not a positive number of milliseconds a timer can hold", () => {
      const client = { evalsha: async () => [1], eval: async () => [1] };
      for (const timeoutMs of [0, -5, Number.NaN, 2 ** 31, Number.POSITIVE_INFINITY]) {
        expect(() => new RedisStore({ client, timeoutMs })).toThrow(RangeError);
      }
    });
  });
});
