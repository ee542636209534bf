/**
 * Replay protection for Cloudflare Workers on Durable Objects: {@link ReplayStoreObject} (export it
 * from your Worker and bind it in wrangler) and {@link durableObjectReplayStore} (a `ReplayStore` over
 * that binding). Workers KV is not offered: it is eventually consistent and has no put-if-absent, so two
 * isolates could both claim one `webhook-id`.
 * @packageDocumentation
 */
export {
  type DurableObjectReplayStoreOptions,
  durableObjectReplayStore,
} from "./durable-object-store.js";
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
} from "./durable-object-types.js";
export { type ReplayCommand, ReplayStoreObject } from "./replay-object.js";
export type { ReplayStore } from "./replay-store.js";
