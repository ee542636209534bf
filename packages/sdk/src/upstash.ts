/**
 * The client's shared state in Upstash Redis over HTTPS, for edge functions without TCP (Vercel,
 * Netlify): `createClient({ store: upstashStore(redis) })` puts the budget, the webhook claims and the
 * upload resume points there. The store kit's Upstash backend (`@promo-review/store/upstash`); it
 * imports no client: pass an `@upstash/redis` `Redis` (install it beside the SDK).
 * @packageDocumentation
 */
export {
  type RedisStorePrefixes,
  type SharedStoreOptions,
  type UpstashRedisClient,
  type UpstashScript,
  type UpstashStoreOptions,
  upstashStore,
} from "@promo-review/store/upstash";
// A batch's journal on the same store: `client.batch.run(items, { journal: storeJournal(store, { name }) })`.
export { type StoreJournalOptions, storeJournal } from "./batch/store-journal.js";
