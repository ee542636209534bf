/**
 * A replay store on Deno KV, for receivers on Deno Deploy (or any Deno with `Deno.openKv`). On a
 * sub-path export, typed structurally: nothing here imports Deno's types or needs Deno at run time,
 * so the package still builds and loads on Node.
 * @packageDocumentation
 */
import { PromoReviewError } from "@promo-review/errors";
import { checkedTimeout, withinDeadline } from "./deadline.js";
import type { ReplayStore } from "./replay-store.js";

/** A part of a Deno KV key (`Deno.KvKeyPart`). */
export type DenoKvKeyPart = string | number | bigint | boolean | symbol | Uint8Array;

/** A Deno KV key (`Deno.KvKey`). */
export type DenoKvKey = readonly DenoKvKeyPart[];

/** What `get` answers (`Deno.KvEntryMaybe`): `versionstamp` is null when the key holds nothing. */
export interface DenoKvEntryMaybe<T> {
  value: T | null;
  versionstamp: string | null;
}

/** The part of `Deno.AtomicOperation` the store uses. */
export interface DenoKvAtomicLike {
  check(...checks: { key: DenoKvKey; versionstamp: string | null }[]): DenoKvAtomicLike;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): DenoKvAtomicLike;
  delete(key: DenoKvKey): DenoKvAtomicLike;
  commit(): Promise<{ ok: true; versionstamp: string } | { ok: false }>;
}

/** The part of a `Deno.Kv` the store uses; the object `await Deno.openKv()` returns fits. */
export interface DenoKvLike {
  get<T = unknown>(key: DenoKvKey): Promise<DenoKvEntryMaybe<T>>;
  atomic(): DenoKvAtomicLike;
}

/** Options of {@link denoKvReplayStore}. */
export interface DenoKvReplayStoreOptions {
  /** Prefix of every key (default `["promo-review", "webhook-id"]`), to share a database safely. */
  prefix?: DenoKvKey | undefined;
  /**
   * How long one claim or release may take, retries included (default 1000 ms). Past it the call
   * fails with `REPLAY_STORE_FAILED` and the delivery is not processed (the sender retries).
   */
  timeoutMs?: number | undefined;
  /** The clock that judges expiry, in milliseconds (default `Date.now`). */
  now?: (() => number) | undefined;
}

/** What a claim stores: whose it is, and when it stops counting (KV may keep it past that). */
interface Claim {
  token: string;
  expiresAt: number;
}

function isClaim(value: unknown): value is Claim {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Claim).token === "string" &&
    typeof (value as Claim).expiresAt === "number"
  );
}

/** A pause between attempts after a commit threw (a local KV file locked by another process, say). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A replay store on Deno KV, shared by every isolate of a deployment (strongly consistent within a
 * region). A claim is one atomic write that succeeds only if the key holds nothing
 * (`check({ key, versionstamp: null })`) and expires with `expireIn`. Because `expireIn` is only the
 * earliest time KV deletes an entry, a claim stores its own expiry: an entry read back past it counts as
 * free, and is claimed over with a check of the versionstamp read, so of concurrent claims one wins.
 * `release` deletes this store's own claim, never another receiver's that replaced an expired one.
 * Each call has a deadline and fails closed: a store that does not answer lets no delivery through.
 */
export function denoKvReplayStore(kv: DenoKvLike, options: DenoKvReplayStoreOptions = {}): ReplayStore {
  const prefix = options.prefix ?? ["promo-review", "webhook-id"];
  const timeoutMs = checkedTimeout(options.timeoutMs ?? 1000);
  const failed = (what: string) =>
    `The Deno KV replay store did not ${what} within ${timeoutMs} ms; the delivery was not processed`;
  const now = options.now ?? Date.now;
  // The token of each claim this store made and has not released, in claim order (expiry order with
  // one TTL per verifier, so expired ones are dropped from the front).
  const mine = new Map<string, Claim>();

  function forget(at: number): void {
    for (const [id, claim] of mine) {
      if (claim.expiresAt > at) return;
      mine.delete(id);
    }
  }

  async function claim(key: DenoKvKey, claimed: Claim, ttlMs: number, gone: () => boolean): Promise<boolean> {
    const expireIn = Math.max(1, Math.ceil(ttlMs));
    let free: string | null = null;
    for (let attempt = 0; !gone(); attempt++) {
      try {
        const committed = await kv
          .atomic()
          .check({ key, versionstamp: free })
          .set(key, claimed, { expireIn })
          .commit();
        if (committed.ok) return true;
        // Someone holds the key (or changed it since it was read): is that claim still current?
        const entry = await kv.get<unknown>(key);
        if (entry.versionstamp === null) {
          free = null;
          continue;
        }
        const held = entry.value;
        // A value that is not a claim is not ours to overwrite: the id counts as taken.
        if (!isClaim(held) || held.expiresAt > now()) return isClaim(held) && held.token === claimed.token;
        free = entry.versionstamp;
      } catch {
        // A commit that threw may still have landed; the next attempt reads our own token back then.
        await pause(Math.min(50, 2 ** attempt));
        free = null;
      }
    }
    return false;
  }

  /** Deletes the entry at `key` if it is the claim `token` (or any entry, without a token). */
  async function remove(key: DenoKvKey, token: string | undefined): Promise<void> {
    const entry = await kv.get<unknown>(key);
    if (entry.versionstamp === null) return;
    if (token !== undefined && !(isClaim(entry.value) && entry.value.token === token)) return;
    // Checked, so a claim made over this one meanwhile stays; if it moved, it is not ours any more.
    await kv.atomic().check({ key, versionstamp: entry.versionstamp }).delete(key).commit();
  }

  return {
    async claim(id, ttlMs) {
      const key = [...prefix, id];
      const at = now();
      forget(at);
      const claimed: Claim = { token: crypto.randomUUID(), expiresAt: at + ttlMs };
      let abandoned = false;
      const attempt = claim(key, claimed, ttlMs, () => abandoned);
      try {
        const won = await withinDeadline(attempt, timeoutMs, failed(`claim ${id}`));
        if (won) {
          mine.delete(id);
          mine.set(id, claimed);
        }
        return won;
      } catch (error) {
        // Refused now, the sender retries: a commit still in flight must not turn that retry into a
        // "replay". Once it settles, remove this claim, and only this one.
        abandoned = true;
        attempt
          .then((won) => (won ? remove(key, claimed.token) : undefined))
          .catch(() => remove(key, claimed.token))
          .catch(() => {});
        throw error;
      }
    },
    async release(id) {
      const token = mine.get(id)?.token;
      mine.delete(id);
      const removal = remove([...prefix, id], token).catch((cause: unknown) => {
        throw new PromoReviewError({
          code: "REPLAY_STORE_FAILED",
          message: `The Deno KV replay store could not release ${id}`,
          retryable: true,
          cause,
        });
      });
      removal.catch(() => {});
      await withinDeadline(removal, timeoutMs, failed(`release ${id}`));
    },
  };
}
