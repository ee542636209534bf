/**
 * The Upstash store for the whole client, for edge functions (Vercel, Netlify) that keep shared state
 * in Upstash Redis over HTTPS: `upstashStore(redis)` over an `@upstash/redis` client (install it beside
 * the SDK). The same as `@promo-review/store/upstash`, here so that a facade user needs one package.
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
