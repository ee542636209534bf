import { PromoReviewError } from "@promo-review/errors";
import { checkedTimeout, withinDeadline } from "./deadline.js";
import type { DurableObjectNamespaceLike, DurableObjectStubLike } from "./durable-object-types.js";
import type { ReplayCommand } from "./replay-object.js";
import type { ReplayStore } from "./replay-store.js";

/** Options of {@link durableObjectReplayStore}. */
export interface DurableObjectReplayStoreOptions {
  /**
   * Prefix of every object name (default `promo-review:webhook-id:`), so that receivers of several
   * endpoints can share one namespace without sharing ids.
   */
  prefix?: string | undefined;
  /**
   * How long one claim or release may take (default 1000 ms). Past it the call fails with
   * `REPLAY_STORE_FAILED` and the delivery is not processed (the sender retries).
   */
  timeoutMs?: number | undefined;
  /**
   * The request's `ctx.waitUntil`, so that the undo of a claim whose answer came too late still
   * reaches the object after the Worker has answered (without it the runtime may cancel the undo).
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

// The URL only carries the command's name into the object: a stub's fetch never leaves Cloudflare.
const ORIGIN = "https://replay-store.invalid/";

/**
 * A {@link ReplayStore} on Durable Objects ({@link ReplayStoreObject}): one object per `webhook-id`,
 * so a claim is atomic across every isolate and location, and each expired claim is deleted by its
 * object's alarm. One Durable Object request per claim or release, each with a deadline; a store that
 * does not answer, or answers with an error, fails closed with `REPLAY_STORE_FAILED`.
 *
 * Call it where the namespace binding is (inside `fetch(request, env)`): the stub is made per call, in
 * the request that uses it, as workerd requires.
 * @param namespace the binding of the {@link ReplayStoreObject} class (`env.REPLAY_STORE`).
 */
export function durableObjectReplayStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectReplayStoreOptions = {},
): ReplayStore {
  const prefix = options.prefix ?? "promo-review:webhook-id:";
  const timeoutMs = checkedTimeout(options.timeoutMs ?? 1000);
  const failed = (what: string) =>
    `The Durable Object replay store did not ${what} within ${timeoutMs} ms; the delivery was not processed`;

  async function send(stub: DurableObjectStubLike, command: ReplayCommand, id: string): Promise<unknown> {
    const response = await stub.fetch(
      new Request(ORIGIN + command.op, { method: "POST", body: JSON.stringify(command) }),
    );
    if (!response.ok) {
      throw new PromoReviewError({
        code: "REPLAY_STORE_FAILED",
        message: `The Durable Object replay store answered HTTP ${response.status} to ${command.op} ${id}; the delivery was not processed`,
        retryable: true,
      });
    }
    return response.json();
  }

  return {
    async claim(id, ttlMs) {
      const stub = namespace.get(namespace.idFromName(prefix + id));
      const token = crypto.randomUUID();
      const claim = send(stub, { op: "claim", ttlMs, token, notAfter: Date.now() + timeoutMs }, id);
      try {
        const answer = (await withinDeadline(claim, timeoutMs, failed(`claim ${id}`))) as {
          claimed?: unknown;
          late?: unknown;
        };
        // Only when this isolate's clock runs behind the object's: the object did not record it.
        if (answer.late === true)
          throw new PromoReviewError({
            code: "REPLAY_STORE_FAILED",
            message: failed(`claim ${id}`),
            retryable: true,
          });
        return answer.claimed === true;
      } catch (error) {
        // A claim that reaches the object after the deadline is not recorded (`notAfter`), but one
        // recorded in time whose answer came late would turn the sender's retry into a "replay". Requests
        // of one stub arrive in order, so this undo follows the claim and removes that claim only.
        claim.catch(() => {});
        const undo = send(stub, { op: "undo", token }, id).catch(() => {});
        options.waitUntil?.(undo);
        throw error;
      }
    },
    async release(id) {
      const stub = namespace.get(namespace.idFromName(prefix + id));
      const release = send(stub, { op: "release" }, id);
      release.catch(() => {});
      await withinDeadline(release, timeoutMs, failed(`release ${id}`));
    },
  };
}
