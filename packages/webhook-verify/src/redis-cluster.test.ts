import { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import { redisClusterAvailable, useRedisCluster } from "../../../testing/redis-cluster.ts";
import { NOW_MS, NOW_S, SECRET, sampleEvent } from "../test/support/fixtures.js";
import * as nodeEntry from "./index.node.js";
import { createWebhookVerifier } from "./index.node.js";
import { createRedisReplayStore, type RedisLikeClient } from "./redis.js";

const TIMEOUT_MS = 500;
/** Room for a loaded 2-core machine; the bound itself is the store's deadline. */
const SLACK_MS = 1000;

describe.runIf(redisClusterAvailable("webhook-verify Redis Cluster"))(
  "the Redis replay store on a real Redis Cluster (three masters, ioredis Cluster)",
  () => {
    const { connect, prefix, cluster } = useRedisCluster(Cluster);

    /** A signed delivery with id `id`. */
    async function delivery(id: string): Promise<{ headers: Record<string, string>; body: string }> {
      const body = JSON.stringify(sampleEvent());
      const headers = await nodeEntry.sign({ webhookSecret: SECRET, body, id, timestamp: NOW_S });
      return { headers, body };
    }

    /** A receiver (its own verifier, its own cluster client) that counts the deliveries it processed. */
    function receiver(
      keyPrefix: string,
      processed: string[],
      onError?: (error: unknown) => void,
      timeoutMs = TIMEOUT_MS,
    ) {
      // ioredis's Cluster is a client the store takes (checked here, at compile time).
      const client: RedisLikeClient = connect();
      const verifier = createWebhookVerifier({
        webhookSecret: SECRET,
        now: () => NOW_MS,
        replayStore: createRedisReplayStore({ client, prefix: keyPrefix, timeoutMs }),
      });
      return verifier.handler((_event, d) => void processed.push(d.id), {
        onError: onError ?? (() => {}),
      });
    }

    describe("parallel copies of one delivery to two receivers are accepted once", () => {
      it("one copy is processed (200), every other is a replay (200 once known, 409 while in flight)", async () => {
        const keyPrefix = prefix();
        const processed: string[] = [];
        // Not a test of the deadline: under load a fresh cluster client's first claims outlasted 500 ms
        // (a 500 answer among the copies), so these receivers wait as long as the test may.
        const patient = (list: string[]) => receiver(keyPrefix, list, undefined, 10_000);
        const receivers = [patient(processed), patient(processed)];
        // Ids spread over the slots of every master.
        for (const id of ["msg_cluster_a", "msg_cluster_b", "msg_cluster_c", "msg_cluster_d"]) {
          processed.length = 0;
          const { headers, body } = await delivery(id);
          const answers = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              receivers[i % 2]!(new Request("http://127.0.0.1/", { method: "POST", headers, body })).then(
                (r) => r.status,
              ),
            ),
          );
          expect(processed).toHaveLength(1);
          expect(answers.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
          expect(answers.every((status) => status === 200 || status === 409)).toBe(true);
        }
      });
    });

    // Last: it kills a master, and the cluster stays down for the rest of the file.
    describe("with the master holding the id's slot killed, claims fail closed within timeoutMs", () => {
      it("every delivery is refused with 500 (the sender retries) within the deadline, none is processed", async () => {
        const keyPrefix = prefix();
        const id = "msg_cluster_killed";
        const processed: string[] = [];
        const errors: unknown[] = [];
        const handle = receiver(keyPrefix, processed, (e) => errors.push(e));
        const master = await cluster().masterOf(`${keyPrefix}${id}`);
        await master.stop("SIGKILL");
        const { headers, body } = await delivery(id);
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            await new Promise((resolve) => setTimeout(resolve, i * 250));
            const start = Date.now();
            const response = await handle(
              new Request("http://127.0.0.1/", { method: "POST", headers, body }),
            );
            return { status: response.status, ms: Date.now() - start };
          }),
        );
        console.log(`cluster, master killed: refusals within ${outcomes.map((o) => o.ms).join(", ")} ms`);
        for (const { status, ms } of outcomes) {
          expect(status).toBe(500);
          expect(ms).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
        }
        expect(processed).toEqual([]);
        expect(errors.length).toBe(outcomes.length);
        for (const error of errors)
          expect(error).toMatchObject({ code: "REPLAY_STORE_FAILED", retryable: true });
      }, 60_000);
    });
  },
);
