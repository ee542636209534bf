import { isPromoReviewError } from "@promo-review/errors";
import { Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { redisClusterAvailable, useRedisCluster } from "../../../testing/redis-cluster.ts";
import { freePort, redisAvailable, startRedis, useRedis } from "../../../testing/redis-server.ts";
import { describeSwap } from "../../../testing/store-swap.ts";
import { type RedisStoreClient, redisStore } from "./redis.js";
import type { StoreWindow } from "./window.js";

const SHARED: StoreWindow = { id: "shared", limit: 3, windowMs: 60_000 };
const LINKS: StoreWindow = { id: "links", limit: 1, windowMs: 60_000 };

/** `client`, each command sent `ms` late (in order), as an offline queue would. */
function late(client: Redis, ms: number): RedisStoreClient {
  const after = <T>(send: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => setTimeout(() => send().then(resolve, reject), ms));
  return {
    evalsha: (sha, n, ...args) => after(() => client.evalsha(sha, n, ...args)),
    eval: (script, n, ...args) => after(() => client.eval(script, n, ...args)),
    set: (key: string, value: string, px: "PX", ttl: number, nx?: "NX") =>
      after(() => (nx ? client.set(key, value, px, ttl, nx) : client.set(key, value, px, ttl))),
    get: (key) => after(() => client.get(key)),
    del: (key) => after(() => client.del(key)),
  } as RedisStoreClient;
}

const passing = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms + 30));

describe.runIf(redisAvailable("store Redis backend"))("Redis store (real redis-server)", () => {
  const { connect, prefix } = useRedis(Redis);
  const prefixes = () => {
    const p = prefix();
    return { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
  };

  describe("the budget: one atomic script per decision, across every window that applies", () => {
    it("takes from every window or from none", async () => {
      const store = redisStore(connect(), { prefixes: prefixes() });
      const both = [SHARED, LINKS];
      await expect(store.take("k", both)).resolves.toEqual({ ok: true });
      const refused = await store.take("k", both);
      expect(refused).toMatchObject({ ok: false, paused: false, full: ["links"] });
      await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [SHARED])).resolves.toEqual({ ok: true });
      await expect(store.take("k", [SHARED])).resolves.toMatchObject({ ok: false, full: ["shared"] });
    });

    it("never admits more than the limit under concurrent decisions from many connections", async () => {
      const p = prefixes();
      const stores = Array.from({ length: 6 }, () => redisStore(connect(), { prefixes: p }));
      const window: StoreWindow = { id: "shared", limit: 60, windowMs: 60_000 };
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) => stores[i % stores.length]!.take("k", [window])),
      );
      expect(answers.filter((a) => a.ok).length).toBe(60);
    });

    it("settles a ticket and pauses on Redis's clock; loads the script again after SCRIPT FLUSH", async () => {
      const c = connect();
      const p = prefixes();
      const store = redisStore(c, { prefixes: p });
      const w: StoreWindow = { id: "t", limit: 1, windowMs: 60_000, holdMs: 5000 };
      await expect(store.take("k", [w], "ticket-1")).resolves.toEqual({ ok: true });
      const before = Number(await c.zscore(`${p.window}{k}:w:t`, "ticket-1"));
      await store.settle("k", [w], "ticket-1");
      expect(before - Number(await c.zscore(`${p.window}{k}:w:t`, "ticket-1"))).toBeGreaterThan(4000);
      await c.script("FLUSH");
      await store.pause("k", 5000);
      await expect(store.take("k", [SHARED])).resolves.toMatchObject({ ok: false, paused: true });
    });

    it("a take that reaches Redis after its deadline is undone", async () => {
      const c = connect();
      const p = prefixes();
      await redisStore(c, { prefixes: p }).take("other", [SHARED]);
      const store = redisStore(late(c, 200), { prefixes: p, timeoutMs: 50 });
      await expect(store.take("k", [SHARED])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
      // Long enough for the late take and its undo to have run.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await c.zcard(`${p.window}{k}:w:shared`)).toBe(0);
    });

    it("refuses an answer that is not the script's", async () => {
      const client = { ...late(connect(), 0), evalsha: async () => "nonsense", eval: async () => "nonsense" };
      await expect(redisStore(client).take("k", [SHARED])).rejects.toMatchObject({
        code: "BUDGET_STORE_UNAVAILABLE",
      });
    });
  });

  describe("a claim: SET NX PX, once across every process, with Redis's expiry", () => {
    it("claims once, with the TTL set in Redis, and again after a release", async () => {
      const c = connect();
      const p = prefixes();
      const [a, b] = [redisStore(c, { prefixes: p }), redisStore(connect(), { prefixes: p })];
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).claim("msg_1", 60_000)),
      );
      expect(answers.filter(Boolean)).toHaveLength(1);
      const ttl = await c.pttl(`${p.claim}msg_1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await (answers.indexOf(true) % 2 ? a : b).release("msg_1");
      expect(await a.claim("msg_1", 60_000)).toBe(true);
    });

    it("a claim answered after its deadline is undone, and another's claim stays", async () => {
      const c = connect();
      const p = prefixes();
      const store = redisStore(late(c, 200), { prefixes: p, timeoutMs: 50 });
      await expect(store.claim("msg_late", 60_000)).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await c.exists(`${p.claim}msg_late`)).toBe(0);
      // Releasing an id this store never claimed removes whoever holds it (the handler failed: let the retry in).
      await c.set(`${p.claim}msg_2`, "another", "PX", 60_000);
      await redisStore(c, { prefixes: p }).release("msg_2");
      expect(await c.exists(`${p.claim}msg_2`)).toBe(0);
    });
  });

  describe("a value: GET, SET PX, DEL", () => {
    it("keeps a value for its TTL, shared by every process, until deleted", async () => {
      const c = connect();
      const p = prefixes();
      const [a, b] = [redisStore(c, { prefixes: p }), redisStore(connect(), { prefixes: p })];
      expect(await a.get("f")).toBeUndefined();
      await a.set("f", "record", 60_000);
      expect(await b.get("f")).toBe("record");
      const ttl = await c.pttl(`${p.value}f`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await b.delete("f");
      expect(await a.get("f")).toBeUndefined();
    });

    it("the default prefixes are the keys the packages' own Redis stores wrote", async () => {
      const c = connect();
      const store = redisStore(c);
      const id = `msg_${crypto.randomUUID()}`;
      await store.claim(id, 1000);
      expect(await c.exists(`promo-review:webhook-id:${id}`)).toBe(1);
      await store.set(id, "x", 1000);
      expect(await c.get(`promo-review:upload:${id}`)).toBe("x");
      await store.take(id, [LINKS]);
      expect(await c.exists(`promo-review:rate-budget:{${id}}:w:links`)).toBe(1);
    });
  });

  describeSwap("Redis", {
    stores: () => {
      const p = prefixes();
      return [redisStore(connect(), { prefixes: p }), redisStore(connect(), { prefixes: p })];
    },
    pass: passing,
  });

  describe("when Redis is unreachable, every call costs at most timeoutMs and fails as chosen", () => {
    it("a closed port: claim, value and window each fail closed with their code at the deadline", async () => {
      const client = new Redis({ host: "127.0.0.1", port: await freePort() });
      client.on("error", () => {});
      try {
        const store = redisStore(client, { timeoutMs: 100 });
        for (const [call, code] of [
          [() => store.claim("m", 1000), "REPLAY_STORE_FAILED"],
          [() => store.get("f"), "RESUME_STORE_UNAVAILABLE"],
          [() => store.take("k", [SHARED]), "BUDGET_STORE_UNAVAILABLE"],
        ] as const) {
          const error = await Promise.resolve(call()).catch((e: unknown) => e);
          expect(isPromoReviewError(error) && error.code).toBe(code);
          expect(String((error as Error).cause)).toContain("within 100 ms");
        }
      } finally {
        client.disconnect();
      }
    });

    it("fails open onto memory, and uses Redis again once it is back", async () => {
      const own = await startRedis();
      const c = connect(own.port);
      const store = redisStore(c, { whenUnavailable: "open", timeoutMs: 300, recheckMs: 0 });
      await own.stop();
      expect(await store.claim("m", 60_000)).toBe(true);
      expect(await store.claim("m", 60_000)).toBe(false);
      const again = await startRedis(own.port);
      try {
        await c.ping();
        await expect
          .poll(() => store.set("f", "back", 60_000).then(() => c.get("promo-review:upload:f")), {
            timeout: 3000,
          })
          .toBe("back");
      } finally {
        await again.stop();
      }
    });
  });
});

describe.runIf(redisClusterAvailable("store Redis Cluster backend"))(
  "Redis Cluster store (three masters)",
  () => {
    const { connect, prefix } = useRedisCluster(Cluster);

    describeSwap("Redis Cluster", {
      stores: () => {
        const p = prefix();
        const prefixes = { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
        return [redisStore(connect(), { prefixes }), redisStore(connect(), { prefixes })];
      },
      pass: passing,
    });

    it("one key's budget, claims and values, shared by two cluster clients", async () => {
      const p = prefix();
      const prefixes = { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
      const [a, b] = [redisStore(connect(), { prefixes }), redisStore(connect(), { prefixes })];
      const window: StoreWindow = { id: "w", limit: 10, windowMs: 60_000 };
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(`key-${i % 4}`, [window])),
      );
      expect(answers.filter((d) => d.ok)).toHaveLength(40);
      const more = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take("key-0", [window])),
      );
      expect(more.filter((d) => d.ok)).toHaveLength(0);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim(`msg_${i % 5}`, 60_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(5);
      await a.set("upload-1", "u_1", 60_000);
      expect(await b.get("upload-1")).toBe("u_1");
    });
  },
);
