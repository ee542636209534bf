/**
 * The client's shared state in Deno KV: `createClient({ store: denoKvStore(await Deno.openKv()) })`
 * puts the budget, the webhook claims and the upload resume points there, shared by every isolate of a
 * Deno Deploy project. The store kit's Deno backend (`@promo-review/store/deno`), typed structurally.
 * @packageDocumentation
 */
export {
  DENO_KV_MAX_ADMISSIONS,
  type DenoKvLike,
  type DenoKvStoreOptions,
  type DenoKvStorePrefixes,
  denoKvStore,
  type SharedStoreOptions,
} from "@promo-review/store/deno";
// A batch's journal on the same store: `client.batch.run(items, { journal: storeJournal(store, { name }) })`.
export { type StoreJournalOptions, storeJournal } from "./batch/store-journal.js";
