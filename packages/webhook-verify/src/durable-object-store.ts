import {
  type DurableObjectNamespaceLike,
  type DurableObjectStoreOptions,
  durableObjectStore,
} from "@promo-review/store/cloudflare";
import type { ReplayStore } from "./replay-store.js";

/**
 * Options of {@link durableObjectReplayStore}.
 * @deprecated use `durableObjectStore(namespace, options)` from `@promo-review/store/cloudflare`.
 */
export interface DurableObjectReplayStoreOptions extends Omit<DurableObjectStoreOptions, "prefixes"> {
  /** Prefix of every object name (default `promo-review:webhook-id:`). */
  prefix?: string | undefined;
}

/**
 * A replay store on Durable Objects: `durableObjectStore(namespace, { prefixes: { claim: prefix } })`
 * under its old name; one object per `webhook-id`, a claim atomic across every isolate, each call with
 * a deadline, failing closed with `REPLAY_STORE_FAILED`.
 * @deprecated use `durableObjectStore(namespace)` from `@promo-review/store/cloudflare` (or
 * `@promo-review/sdk/cloudflare`) and pass it as `createWebhookVerifier({ store })`.
 * @param namespace the binding of the {@link ReplayStoreObject} (now `PromoReviewState`) class.
 */
export function durableObjectReplayStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectReplayStoreOptions = {},
): ReplayStore {
  return durableObjectStore(namespace, { ...options, prefixes: { claim: options.prefix } });
}
