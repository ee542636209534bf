/**
 * The Deno KV replay store under its old name: `denoKvReplayStore(kv)` is now `denoKvStore(kv)` from
 * `@promo-review/store/deno` (or `@promo-review/sdk/deno`), one store for the webhook claims, the budget
 * and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
import { type DenoKvLike, type DenoKvStoreOptions, denoKvStore } from "@promo-review/store/deno";
import type { ReplayStore } from "./replay-store.js";

export type {
  DenoKvAtomicLike,
  DenoKvEntryMaybe,
  DenoKvKey,
  DenoKvKeyPart,
  DenoKvLike,
} from "@promo-review/store/deno";

/**
 * Options of {@link denoKvReplayStore}.
 * @deprecated use `denoKvStore(kv, options)` from `@promo-review/store/deno`.
 */
export interface DenoKvReplayStoreOptions {
  /** Prefix of every key (default `["promo-review", "webhook-id"]`), to share a database safely. */
  prefix?: NonNullable<DenoKvStoreOptions["prefixes"]>["claim"];
  /** How long one claim or release may take, retries included (default 1000 ms); past it `REPLAY_STORE_FAILED`. */
  timeoutMs?: number | undefined;
  /** The clock that judges expiry, in milliseconds (default `Date.now`). */
  now?: (() => number) | undefined;
}

/**
 * A replay store on Deno KV: `denoKvStore(kv, { prefixes: { claim: prefix } })` under its old name.
 * A claim is one atomic commit that succeeds only if the key holds nothing or an expired claim; each
 * call has a deadline and fails closed.
 * @deprecated use `denoKvStore(kv)` from `@promo-review/store/deno` (or `@promo-review/sdk/deno`) and
 * pass it as `createWebhookVerifier({ store })`.
 */
export function denoKvReplayStore(kv: DenoKvLike, options: DenoKvReplayStoreOptions = {}): ReplayStore {
  return denoKvStore(kv, {
    timeoutMs: options.timeoutMs,
    now: options.now,
    prefixes: { claim: options.prefix },
  });
}
