import { isPromoReviewError } from "@promo-review/errors";
import { memoryStore, type Store } from "@promo-review/store";
import { redisStore } from "@promo-review/store/redis";
import fc from "fast-check";
import { Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { redisClusterAvailable, useRedisCluster } from "../../../../testing/redis-cluster.ts";
import { freePort, redisAvailable, useRedis } from "../../../../testing/redis-server.ts";
import { recordArb } from "../../test/support/journal-records.js";
import { JOURNAL_BUSY, JOURNAL_DAMAGED, JOURNAL_UNAVAILABLE, type JournalRecord } from "./journal.js";
import { storeJournal } from "./store-journal.js";

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
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

const intent = (key: string, at: number): JournalRecord => ({ type: "intent", key, step: "create", at });

/** The journal's rules on one backend: `store()` gives a store of a state shared by every call. */
function journalRules(backend: string, store: () => Store, name: () => string) {
  describe(`${backend}: intents and outcomes are never lost once acknowledged, and come back in order`, () => {
    it("reads back every record appended, across chunks, from another journal on the same store", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(recordArb, { maxLength: 40 }), async (records) => {
          const id = name();
          const writer = storeJournal(store(), { name: id, chunkBytes: 600 });
          for (const record of records) await writer.append(record);
          await writer.close();
          expect(await all(storeJournal(store(), { name: id, chunkBytes: 600 }).read())).toEqual(records);
        }),
        { numRuns: 15 },
      );
    });

    it("two writers appending at once: every record kept once, each writer's in its order", async () => {
      const id = name();
      const [a, b] = [
        storeJournal(store(), { name: id, chunkBytes: 300 }),
        storeJournal(store(), { name: id, chunkBytes: 300 }),
      ];
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).append(intent(`${i % 2 ? "a" : "b"}${i}`, i))),
      );
      const keys = (await all(a.read())).map((record) => (record as { key: string }).key);
      expect(keys.filter((key) => key.startsWith("a"))).toEqual(
        Array.from({ length: 15 }, (_, i) => `a${2 * i + 1}`),
      );
      expect(keys.filter((key) => key.startsWith("b"))).toEqual(
        Array.from({ length: 15 }, (_, i) => `b${2 * i}`),
      );
    });

    it("a chunk something else wrote over is refused as damaged, not read past", async () => {
      const id = name();
      const shared = store();
      await storeJournal(shared, { name: id }).append(intent("k", 1));
      await shared.set(`batch-journal:${id}:0`, "not a record", 60_000);
      const error = await failureOf(all(storeJournal(shared, { name: id }).read()));
      expect(isPromoReviewError(error) && error.code).toBe(JOURNAL_DAMAGED);
    });
  });

  describe(`${backend}: a lease, so two runners never both run an item`, () => {
    it("a second runner is refused clearly, waits for a release, and gets it then", async () => {
      const id = name();
      const [a, b] = [storeJournal(store(), { name: id }), storeJournal(store(), { name: id })];
      const held = await a.lease({ owner: "runner-a" });
      const error = await failureOf(b.lease({ owner: "runner-b" }));
      expect(isPromoReviewError(error) && error.code).toBe(JOURNAL_BUSY);
      expect(String((error as Error).message)).toMatch(/in use by runner runner-a until .* or wait for it/);
      const waiting = b.lease({ owner: "runner-b", waitMs: 60_000 });
      await held.release();
      const taken = await waiting;
      expect(taken.owner).toBe("runner-b");
      await taken.release();
    });

    it("a lease its holder stopped renewing (a crash) is taken over once it expires", async () => {
      const id = name();
      const shared = store();
      // What a runner killed while holding it leaves: a lease nobody renews.
      await shared.swap!(
        `batch-journal:${id}:lease`,
        undefined,
        JSON.stringify({ owner: "dead", expiresAt: 0 }),
        150,
      );
      const lease = await storeJournal(store(), { name: id }).lease({ owner: "next", waitMs: 60_000 });
      expect(lease.owner).toBe("next");
      await lease.release();
    });

    it("a holder whose lease was taken over learns it at its next renewal: its signal aborts", async () => {
      const id = name();
      const shared = store();
      const lease = await storeJournal(shared, { name: id, leaseTtlMs: 300 }).lease({ owner: "slow" });
      const key = `batch-journal:${id}:lease`;
      const current = await shared.get(key);
      await shared.swap!(
        key,
        current,
        JSON.stringify({ owner: "other", expiresAt: Date.now() + 60_000 }),
        60_000,
      );
      await new Promise((resolve) => lease.signal.addEventListener("abort", resolve, { once: true }));
      expect(isPromoReviewError(lease.signal.reason) && lease.signal.reason.code).toBe(JOURNAL_BUSY);
      await lease.release();
      expect(JSON.parse((await shared.get(key))!).owner).toBe("other");
    });
  });
}

describe("storeJournal on the memory store", () => {
  const shared = memoryStore();
  let n = 0;
  journalRules(
    "memory",
    () => shared,
    () => `memory-${n++}`,
  );

  it("refuses a store without swap, and an empty name, as the caller's mistakes", () => {
    const plain = { where: "a store of my own", get: () => Promise.resolve(undefined) } as unknown as Store;
    expect(() => storeJournal(plain, { name: "b" })).toThrow(/needs a store with swap/);
    expect(() => storeJournal(memoryStore(), { name: "" })).toThrow(/needs a name/);
  });

  it("refuses a record larger than a chunk rather than split it", async () => {
    const journal = storeJournal(memoryStore(), { name: "big", chunkBytes: 64 });
    const error = await failureOf(journal.append(intent("x".repeat(100), 1)));
    expect(String(error)).toMatch(/over chunkBytes/);
  });
});

describe.runIf(redisAvailable("sdk store journal on Redis"))("storeJournal on a real redis-server", () => {
  const { connect, prefix } = useRedis(Redis);
  const p = prefix();
  const prefixes = { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
  let n = 0;
  // A store per call: as many connections as runners in separate processes.
  journalRules(
    "Redis",
    () => redisStore(connect(), { prefixes }),
    () => `redis-${n++}`,
  );

  describe("fails closed when Redis does not answer, even on a store that fails open", () => {
    it("reads, appends and leases each fail with JOURNAL_UNAVAILABLE, nothing served from memory", async () => {
      const closed = await freePort();
      const store = redisStore(connect(closed), { whenUnavailable: "open", timeoutMs: 200, recheckMs: 0 });
      const journal = storeJournal(store, { name: "down" });
      for (const call of [
        () => all(journal.read()),
        () => journal.append(intent("k", 1)),
        () => journal.lease({ owner: "r" }),
      ]) {
        const error = await failureOf(call());
        expect(isPromoReviewError(error) && [error.code, error.retryable]).toEqual([
          JOURNAL_UNAVAILABLE,
          true,
        ]);
      }
    });
  });
});

describe.runIf(redisClusterAvailable("sdk store journal on Redis Cluster"))(
  "storeJournal on a Redis Cluster",
  () => {
    const { connect, prefix } = useRedisCluster(Cluster);
    const p = prefix();
    const prefixes = { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
    let n = 0;
    // Each chunk and the lease are keys of their own, on whichever master holds their slot.
    journalRules(
      "Redis Cluster",
      () => redisStore(connect(), { prefixes }),
      () => `cluster-${n++}`,
    );
  },
);
