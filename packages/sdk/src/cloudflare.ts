/**
 * The client's shared state on Cloudflare Durable Objects:
 * `createClient({ store: durableObjectStore(env.PROMO_REVIEW_STATE) })` puts the budget, the webhook
 * claims and the upload resume points there, and `PromoReviewState` is the one class to export from
 * the Worker and bind. The store kit's Cloudflare backend (`@promo-review/store/cloudflare`).
 * @packageDocumentation
 */
export {
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  type DurableObjectStoreOptions,
  type DurableObjectStorePrefixes,
  durableObjectStore,
  PromoReviewState,
  type SharedStoreOptions,
} from "@promo-review/store/cloudflare";
// A batch's journal on the same store: `client.batch.run(items, { journal: storeJournal(store, { name }) })`.
export { type StoreJournalOptions, storeJournal } from "./batch/store-journal.js";
