import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
// One redis-server harness in the repository (it finds, starts and stops the binary, makes and
// disconnects the clients, and under CI=true refuses to skip).
import { throughKillAndRestart } from "../../../testing/redis-outage.ts";
import {
  freePort,
  redisAvailable,
  startRedis,
  type TestRedis,
  useRedis,
} from "../../../testing/redis-server.ts";
import { NOW_MS, SECRET, sampleEvent, signed } from "../test/support/fixtures.js";
import * as nodeEntry from "./index.node.js";
import { createWebhookVerifier } from "./index.node.js";
import { createRedisReplayStore } from "./redis.js";

/** A client with ioredis's defaults (20 retries per command, an offline queue): about 10 s per refusal without a deadline. */
function defaultClient(port: number): Redis {
  const client = new Redis({ host: "127.0.0.1", port });
  // Connection errors are the point of these tests; the store reports them itself.
  client.on("error", () => {});
  return client;
}

describe.runIf(redisAvailable("webhook-verify Redis replay store"))(
  "Redis replay store (real redis-server)",
  () => {
    const { connect, prefix } = useRedis(Redis);

    it("claims with SET NX PX: once, with the TTL set in Redis, and again after DEL", async () => {
      const client = connect();
      const keyPrefix = prefix();
      const store = createRedisReplayStore({ client, prefix: keyPrefix });
      expect(await store.claim("msg_1", 60_000)).toBe(true);
      expect(await store.claim("msg_1", 60_000)).toBe(false);
      const ttl = await client.pttl(`${keyPrefix}msg_1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await store.release("msg_1");
      expect(await client.exists(`${keyPrefix}msg_1`)).toBe(0);
      expect(await store.claim("msg_1", 60_000)).toBe(true);
    });

    it("lets exactly one of many concurrent claims from separate connections win", async () => {
      const keyPrefix = prefix();
      const stores = Array.from({ length: 8 }, () =>
        createRedisReplayStore({ client: connect(), prefix: keyPrefix }),
      );
      const results = await Promise.all(stores.map((store) => store.claim("msg_race", 10_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("lets Redis expire a claim", async () => {
      const client = connect();
      const store = createRedisReplayStore({ client, prefix: prefix() });
      expect(await store.claim("msg_short", 0.4)).toBe(true);
      // A sub-millisecond TTL is rounded up to Redis's minimum of 1 ms; wait until Redis has dropped it.
      await expect.poll(() => store.claim("msg_short", 60_000)).toBe(true);
    });

    it("uses the default prefix, and protects two verifier instances sharing one Redis", async () => {
      const client = connect();
      const first = createWebhookVerifier({
        webhookSecret: SECRET,
        now: () => NOW_MS,
        replayStore: createRedisReplayStore({ client }),
      });
      const second = createWebhookVerifier({
        webhookSecret: SECRET,
        now: () => NOW_MS,
        replayStore: createRedisReplayStore({ client: connect() }),
      });
      const delivery = await signed(nodeEntry, JSON.stringify(sampleEvent()), SECRET);
      await client.del("promo-review:webhook-id:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
      await first.verify(delivery);
      expect(await client.exists("promo-review:webhook-id:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W")).toBe(1);
      await expect(second.verify(delivery)).rejects.toMatchObject({ reason: "replayed" });
      await second.release("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
      await expect(second.verify(delivery)).resolves.toBeDefined();
    });

    describe("every call has a deadline and fails closed (Redis down, ioredis defaults)", () => {
      it("refuses a claim with REPLAY_STORE_FAILED at the deadline, and the handler answers 500 (the sender retries)", async () => {
        const client = defaultClient(await freePort());
        try {
          const store = createRedisReplayStore({ client, timeoutMs: 200 });
          const error = await store.claim("msg_down", 60_000).catch((e: unknown) => e);
          expect(error).toMatchObject({ code: "REPLAY_STORE_FAILED", retryable: true });
          // The deadline's own error, not ioredis giving up after its retries.
          expect((error as Error).message).toContain("within 200 ms");
          await expect(store.release("msg_down")).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });

          const errors: unknown[] = [];
          const verifier = createWebhookVerifier({
            webhookSecret: SECRET,
            now: () => NOW_MS,
            replayStore: store,
          });
          const handle = verifier.handler(() => {}, { onError: (e) => errors.push(e) });
          const { headers, body } = await signed(nodeEntry, JSON.stringify(sampleEvent()), SECRET);
          const response = await handle(
            new Request("http://127.0.0.1/", { method: "POST", headers, body: body as string }),
          );
          expect(response.status).toBe(500);
          expect(errors).toEqual([expect.objectContaining({ code: "REPLAY_STORE_FAILED" })]);
        } finally {
          client.disconnect();
        }
      });

      it("undoes a claim that missed its deadline but reached Redis later, so the sender's retry is processed", async () => {
        const server = await startRedis();
        const client = defaultClient(server.port);
        const keyPrefix = prefix();
        const store = createRedisReplayStore({ client, prefix: keyPrefix, timeoutMs: 200 });
        let restarted: Awaited<ReturnType<typeof startRedis>> | undefined;
        try {
          expect(await store.claim("msg_before", 60_000)).toBe(true);
          await server.stop();
          // Queued in ioredis's offline queue, past the deadline: refused now, sent when Redis is back.
          await expect(store.claim("msg_late", 60_000)).rejects.toMatchObject({
            code: "REPLAY_STORE_FAILED",
          });
          restarted = await startRedis(server.port);
          // Commands on one connection run in order: once this answers, the late claim and its undo have run.
          expect(await client.exists(`${keyPrefix}msg_late`)).toBe(0);
          expect(await store.claim("msg_late", 60_000)).toBe(true);
        } finally {
          client.disconnect();
          await restarted?.stop();
        }
      });

      it("Redis killed and restarted: every claim answers within timeoutMs, and claims succeed within a second of the restart", async () => {
        const TIMEOUT_MS = 300;
        const SLACK_MS = 1000; // a loaded 2-core machine; the bounds are the store's deadline and "about a second"
        const server = await startRedis();
        const clients = Array.from({ length: 3 }, () => defaultClient(server.port));
        const keyPrefix = prefix();
        let seq = 0;
        const calls = clients.map((client) => {
          const store = createRedisReplayStore({ client, prefix: keyPrefix, timeoutMs: TIMEOUT_MS });
          return () => store.claim(`msg_outage_${seq++}`, 60_000);
        });
        let restarted: TestRedis | undefined;
        try {
          for (const call of calls) expect(await call()).toBe(true);
          const outage = await throughKillAndRestart({ server, calls });
          restarted = outage.restarted;
          console.log(
            `replay store outage: longest claim ${outage.longestCallMs} ms, back ${outage.backAfterMs.join(", ")} ms after the restart`,
          );
          expect(outage.answeredWhileDown).toBe(0);
          for (const error of outage.refusals)
            expect(error).toMatchObject({ code: "REPLAY_STORE_FAILED", retryable: true });
          expect(outage.longestCallMs).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
          for (const ms of outage.backAfterMs) expect(ms).toBeLessThanOrEqual(1000 + SLACK_MS);
        } finally {
          for (const client of clients) client.disconnect();
          await restarted?.stop();
        }
      });

      it("leaves another receiver's claim alone when undoing its own", async () => {
        const client = connect();
        const keyPrefix = prefix();
        const other = createRedisReplayStore({ client: connect(), prefix: keyPrefix });
        expect(await other.claim("msg_theirs", 60_000)).toBe(true);
        // A client whose SET stalls past the deadline: its undo must not delete the other's claim.
        const stalled = {
          set: () => new Promise<null>(() => {}),
          del: (key: string) => client.del(key),
          eval: (script: string, numKeys: number, ...args: string[]) => client.eval(script, numKeys, ...args),
        };
        const store = createRedisReplayStore({ client: stalled, prefix: keyPrefix, timeoutMs: 50 });
        await expect(store.claim("msg_theirs", 60_000)).rejects.toMatchObject({
          code: "REPLAY_STORE_FAILED",
        });
        await expect.poll(() => client.exists(`${keyPrefix}msg_theirs`)).toBe(1);
        expect(await other.claim("msg_theirs", 60_000)).toBe(false);
      });

      it("refuses a deadline that is not a positive number of milliseconds a timer can hold", () => {
        const client = { set: async () => "OK", del: async () => 1 };
        for (const timeoutMs of [0, -1, Number.NaN, 2 ** 31, Number.POSITIVE_INFINITY]) {
          expect(() => createRedisReplayStore({ client, timeoutMs })).toThrow(RangeError);
        }
      });
    });
  },
);
