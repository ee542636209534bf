/**
 * The Deno KV store: the budget, the webhook claims and the upload resume points of every isolate of a
 * Deno Deploy project (or every deno process on one KV). Typed structurally: nothing here imports
 * Deno's types or needs Deno at run time, so the package still builds and loads on Node.
 * @packageDocumentation
 */
import type { StoreAdapter, StoreCall } from "./adapter.js";
import { retryCommits } from "./retry.js";
import { type SharedStoreOptions, sharedStore } from "./shared-store.js";
import type { Store } from "./store.js";
import type { Decision, StoreWindow } from "./window.js";
import {
  applyWindowOp,
  emptyWindowState,
  isWindowState,
  type WindowOp,
  windowStateEnd,
} from "./window-state.js";

export type { SharedStoreOptions } from "./shared-store.js";

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

/** Prefixes of the keys the store writes, one per kind of state. */
export interface DenoKvStorePrefixes {
  /** Budget keys (default `["promo-review", "rate-budget"]`). */
  window?: DenoKvKey | undefined;
  /** Webhook ids (default `["promo-review", "webhook-id"]`). */
  claim?: DenoKvKey | undefined;
  /** Upload resume points (default `["promo-review", "upload"]`). */
  value?: DenoKvKey | undefined;
}

/** Options of {@link denoKvStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}. */
export interface DenoKvStoreOptions extends SharedStoreOptions {
  /** Prefixes of every key, to share a database safely (the defaults are the packages' old stores' keys). */
  prefixes?: DenoKvStorePrefixes | undefined;
  /**
   * How many times one budget decision is tried when another isolate changed the key between its read
   * and its write (default 32); past it the store counts as unavailable for that call. Each conflict
   * means another decision was made, so a decision that keeps losing is one among very many at once.
   */
  maxAttempts?: number | undefined;
  /**
   * The clock every isolate judges windows and expiries on, in milliseconds (default `Date.now`, the
   * wall clock: KV has no clock of its own, unlike Redis's `TIME`).
   */
  now?: (() => number) | undefined;
}

/**
 * The most admissions a key's windows may hold together: the state is one KV value, and KV refuses
 * values over 64 KiB (a ticket and its time take about 60 bytes).
 */
export const DENO_KV_MAX_ADMISSIONS = 1000;

/** A claim or a value as stored: KV's `expireIn` is only the earliest deletion, so each keeps its own expiry. */
interface Held {
  token?: string;
  value?: string;
  expiresAt: number;
}

function isHeld(value: unknown): value is Held {
  return typeof value === "object" && value !== null && typeof (value as Held).expiresAt === "number";
}

/**
 * The adapter. The budget: one KV value per key with every window and the pause, decided by
 * `applyWindowOp` on a read and committed only if unchanged (`check`), else read again
 * (`retryCommits`). A claim: one commit that succeeds only if the key holds nothing or an expired
 * claim (checked by versionstamp), so of concurrent claims one wins. A value: one `set` with
 * `expireIn` and its own expiry.
 */
export function denoKvAdapter(
  kv: DenoKvLike,
  options: Omit<DenoKvStoreOptions, keyof SharedStoreOptions> = {},
): StoreAdapter {
  const prefix = {
    window: options.prefixes?.window ?? ["promo-review", "rate-budget"],
    claim: options.prefixes?.claim ?? ["promo-review", "webhook-id"],
    value: options.prefixes?.value ?? ["promo-review", "upload"],
  };
  const now = options.now ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 32;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }

  /** One budget operation: read, decide on the key's clock, commit if changed; on a conflict, again. */
  function windowOp(key: string, op: WindowOp, { signal }: StoreCall): Promise<Decision | undefined> {
    const kvKey = [...prefix.window, key];
    return retryCommits(
      async () => {
        const entry = await kv.get<unknown>(kvKey);
        const state = isWindowState(entry.value) ? entry.value : emptyWindowState();
        const { decision, changed } = applyWindowOp(state, op, now());
        if (!changed) return { done: decision };
        const end = windowStateEnd(state) ?? state.at;
        try {
          const committed = await kv
            .atomic()
            .check({ key: kvKey, versionstamp: entry.versionstamp })
            .set(kvKey, state, { expireIn: Math.max(1, Math.ceil(end - state.at) + 1) })
            .commit();
          return committed.ok ? { done: decision } : undefined;
        } catch {
          // A local KV file shared by processes answers "database is locked" at times; a commit that
          // threw yet landed changed the versionstamp, so the next attempt decides on it afresh.
          return undefined;
        }
      },
      { signal, maxAttempts, where: "Deno KV" },
    );
  }

  /** Deletes the entry at `key` if it is the claim `token` (or any entry, without a token). */
  async function remove(key: DenoKvKey, token: string | undefined): Promise<void> {
    const entry = await kv.get<unknown>(key);
    if (entry.versionstamp === null) return;
    if (token !== undefined && !(isHeld(entry.value) && entry.value.token === token)) return;
    // Checked, so a claim made over this one meanwhile stays; if it moved, it is not ours any more.
    await kv.atomic().check({ key, versionstamp: entry.versionstamp }).delete(key).commit();
  }

  return {
    where: "Deno KV",
    take: async (key, windows: readonly StoreWindow[], member, ticketed, call) =>
      (await windowOp(key, { op: "take", windows, member, ticketed }, call))!,
    settle: async (key, windows, ticket, call) => {
      await windowOp(key, { op: "settle", windows, ticket }, call);
    },
    pause: async (key, ms, call) => {
      await windowOp(key, { op: "pause", ms }, call);
    },
    async claim(id, token, ttlMs, { signal }) {
      const key = [...prefix.claim, id];
      const claimed: Held = { token, expiresAt: now() + ttlMs };
      const expireIn = Math.max(1, Math.ceil(ttlMs));
      let free: string | null = null;
      const won = await retryCommits(
        async () => {
          try {
            const committed = await kv
              .atomic()
              .check({ key, versionstamp: free })
              .set(key, claimed, { expireIn })
              .commit();
            if (committed.ok) return { done: true };
            // Someone holds the key (or changed it since it was read): is that claim still current?
            const entry = await kv.get<unknown>(key);
            if (entry.versionstamp === null) {
              free = null;
              return undefined;
            }
            const held = entry.value;
            // A value that is not a claim is not ours to overwrite: the id counts as taken.
            if (!isHeld(held) || held.expiresAt > now())
              return { done: isHeld(held) && held.token === token };
            free = entry.versionstamp;
            return undefined;
          } catch {
            // A commit that threw may still have landed; the next attempt reads our own token back then.
            free = null;
            return undefined;
          }
        },
        { signal, maxPauseMs: 50, where: "Deno KV" },
      );
      // Won after the caller gave up (it failed closed): this claim would turn the retry into a replay.
      if (won && signal.aborted) await remove(key, token);
      return won;
    },
    unclaim: (id, token) => remove([...prefix.claim, id], token),
    async get(key) {
      return liveValue((await kv.get<unknown>([...prefix.value, key])).value, now());
    },
    async set(key, value, ttlMs) {
      const held: Held = { value, expiresAt: now() + ttlMs };
      const committed = await kv
        .atomic()
        .set([...prefix.value, key], held, { expireIn: Math.max(1, Math.ceil(ttlMs)) })
        .commit();
      if (!committed.ok) throw new Error("Deno KV refused the write");
    },
    async delete(key) {
      await kv
        .atomic()
        .delete([...prefix.value, key])
        .commit();
    },
    // Read, compare, commit only if the entry is unchanged (its versionstamp), else read again.
    swap: (id, expected, value, ttlMs, { signal }) => {
      const key = [...prefix.value, id];
      return retryCommits(
        async () => {
          const entry = await kv.get<unknown>(key);
          const held = liveValue(entry.value, now());
          if (held !== expected) return { done: held };
          if (value === undefined && entry.versionstamp === null) return { done: held };
          const checked = kv.atomic().check({ key, versionstamp: entry.versionstamp });
          const change =
            value === undefined
              ? checked.delete(key)
              : checked.set(key, { value, expiresAt: now() + ttlMs } satisfies Held, {
                  expireIn: Math.max(1, Math.ceil(ttlMs)),
                });
          try {
            return (await change.commit()).ok ? { done: held } : undefined;
          } catch {
            // A commit that threw may have landed: the next read compares against what is there.
            return undefined;
          }
        },
        { signal, maxPauseMs: 50, where: "Deno KV" },
      );
    },
  };
}

/** The string a value entry holds, unless it expired (KV's `expireIn` is only its earliest deletion). */
function liveValue(stored: unknown, at: number): string | undefined {
  return isHeld(stored) && stored.expiresAt > at && typeof stored.value === "string"
    ? stored.value
    : undefined;
}

/**
 * The budget, the webhook claims and the upload resume points in Deno KV, shared by every isolate of
 * a deployment (strongly consistent within a region). The budget has the exact sliding-window rule of
 * every store; a claim has one winner; each call has a deadline (`timeoutMs`, retries included) and
 * fails closed unless `whenUnavailable: "open"`. A budget whose windows allow more than
 * {@link DENO_KV_MAX_ADMISSIONS} together is refused with a `RangeError` (one KV value holds a key).
 * @param kv the database, `await Deno.openKv()`.
 */
export function denoKvStore(kv: DenoKvLike, options: DenoKvStoreOptions = {}): Store {
  const store = sharedStore(denoKvAdapter(kv, options), options);
  return {
    where: store.where,
    async take(key, windows, ticket) {
      let total = 0;
      for (const w of windows) total += w.limit;
      // A shape this store cannot hold is the caller's mistake, not an unreachable store: rejected as is.
      if (total > DENO_KV_MAX_ADMISSIONS) {
        throw new RangeError(
          `a Deno KV budget key holds at most ${DENO_KV_MAX_ADMISSIONS} admissions (one KV value of 64 KiB); these windows allow ${total}`,
        );
      }
      return store.take(key, windows, ticket);
    },
    settle: (key, windows, ticket) => store.settle(key, windows, ticket),
    pause: (key, ms) => store.pause(key, ms),
    claim: (key, ttlMs) => store.claim(key, ttlMs),
    release: (key) => store.release(key),
    get: (key) => store.get(key),
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    delete: (key) => store.delete(key),
    swap: (key, expected, value, ttlMs) => store.swap!(key, expected, value, ttlMs),
  };
}
