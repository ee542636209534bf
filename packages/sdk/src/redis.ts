/**
 * The client's shared state in Redis or a Redis Cluster: `createClient({ store: redisStore(client) })`
 * puts the budget, the webhook claims and the upload resume points there, shared by every process
 * using it. The store kit's Redis backend (`@promo-review/store/redis`); it imports no Redis client:
 * pass an ioredis `Redis` or `Cluster`.
 * @packageDocumentation
 */
export {
  type RedisStoreClient,
  type RedisStoreOptions,
  type RedisStorePrefixes,
  redisStore,
  type SharedStoreOptions,
} from "@promo-review/store/redis";
// A batch's journal on the same store: `client.batch.run(items, { journal: storeJournal(store, { name }) })`.
export { type StoreJournalOptions, storeJournal } from "./batch/store-journal.js";
