/**
 * Reference data (channels, jurisdictions, products, target markets), cached. The spec tells callers
 * to cache it and refresh it daily, and every read costs main-API budget, so each list is fetched at
 * most once per `ttlMs` (default a day) per store, concurrent reads share one request, and
 * `refresh()` fetches anew on demand. The store is pluggable (a shared cache across processes, say).
 */
import type { HttpClient } from "@promo-review/http";

/** The four lists. */
export const REFERENCE_KINDS = ["channels", "jurisdictions", "products", "targetMarkets"] as const;
/** One of the four lists. */
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** A channel. Unknown fields are kept. */
export interface Channel {
  id: string;
  name: string;
  [field: string]: unknown;
}
/** A jurisdiction. Unknown fields are kept. */
export interface Jurisdiction {
  id: string;
  name: string;
  countryCode: string;
  [field: string]: unknown;
}
/** A product: the spec does not show its fields beyond the id the creation request uses. */
export interface Product {
  id: string;
  name?: string;
  [field: string]: unknown;
}
/** A target market: the spec does not show its fields beyond the id the creation request uses. */
export interface TargetMarket {
  id: string;
  name?: string;
  [field: string]: unknown;
}

/** What one list holds. */
export interface ReferenceItems {
  channels: Channel;
  jurisdictions: Jurisdiction;
  products: Product;
  targetMarkets: TargetMarket;
}

/** A cached list as a store keeps it (plain JSON, so any store can hold it). */
export interface CachedReference {
  items: unknown[];
  /** When it was fetched (epoch ms). */
  fetchedAt: number;
  /** The correlation id of the request that fetched it. */
  correlationId: string;
}

/** Where cached lists live. Methods may be synchronous or return promises. */
export interface ReferenceStore {
  get(key: string): CachedReference | undefined | Promise<CachedReference | undefined>;
  set(key: string, value: CachedReference): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** A store in this process's memory (the default). */
export function memoryReferenceStore(): ReferenceStore {
  const map = new Map<string, CachedReference>();
  return {
    get: (key) => map.get(key),
    set: (key, value) => {
      map.set(key, value);
    },
    delete: (key) => {
      map.delete(key);
    },
  };
}

/** How reference data is cached. */
export interface ReferenceCacheOptions {
  /** How long a list is used before it is fetched again. Default 86 400 000 (a day). */
  ttlMs?: number;
  /** Default: a memory store per client. */
  store?: ReferenceStore;
  /** The clock (epoch ms); tests pass their own. */
  now?: () => number;
  /**
   * Paths of the lists. The spec gives `/v1/channels` and `/v1/jurisdictions` and does not show the
   * products and target-markets paths; the defaults are `/v1/products` and `/v1/target-markets`.
   */
  paths?: Partial<Record<ReferenceKind, string>>;
}

/** A list as returned: under its own name (as the service sends it), with where it came from. */
export type ReferenceList<K extends ReferenceKind> = { [P in K]: ReferenceItems[K][] } & {
  correlationId: string;
  /** When the list was fetched (epoch ms). */
  fetchedAt: number;
  /** Whether it came from the cache rather than a request just made. */
  fromCache: boolean;
};

/** The reference-data reader. */
export interface ReferenceData {
  channels(options?: { signal?: AbortSignal }): Promise<ReferenceList<"channels">>;
  jurisdictions(options?: { signal?: AbortSignal }): Promise<ReferenceList<"jurisdictions">>;
  products(options?: { signal?: AbortSignal }): Promise<ReferenceList<"products">>;
  targetMarkets(options?: { signal?: AbortSignal }): Promise<ReferenceList<"targetMarkets">>;
  /** Fetches the named lists (default all four) now, replacing what is cached. */
  refresh(kinds?: ReferenceKind[], options?: { signal?: AbortSignal }): Promise<void>;
}

const DEFAULT_PATHS: Record<ReferenceKind, string> = {
  channels: "/v1/channels",
  jurisdictions: "/v1/jurisdictions",
  products: "/v1/products",
  targetMarkets: "/v1/target-markets",
};

/** A day, the refresh period the spec recommends. */
export const DEFAULT_REFERENCE_TTL_MS = 86_400_000;

/**
 * Finds the list in a response: under its own name, as the spec shows for channels and jurisdictions;
 * tolerantly, the body itself when it is an array, else its only array field.
 */
function itemsOf(kind: ReferenceKind, body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const record = (body ?? {}) as Record<string, unknown>;
  const named = record[kind];
  if (Array.isArray(named)) return named;
  const arrays = Object.values(record).filter(Array.isArray);
  return arrays.length === 1 ? (arrays[0] as unknown[]) : [];
}

/** Creates the cached reader over a main-API client. */
export function createReferenceData(http: HttpClient, options: ReferenceCacheOptions = {}): ReferenceData {
  const ttlMs = options.ttlMs ?? DEFAULT_REFERENCE_TTL_MS;
  const store = options.store ?? memoryReferenceStore();
  const now = options.now ?? Date.now;
  const paths = { ...DEFAULT_PATHS, ...options.paths };
  const inFlight = new Map<ReferenceKind, Promise<CachedReference>>();
  // Keyed by base URL as well: a shared store must never serve staging data to production.
  const keyOf = (kind: ReferenceKind) => `promo-review:reference:${http.baseUrl}:${kind}`;

  function fetchList(kind: ReferenceKind, signal?: AbortSignal): Promise<CachedReference> {
    const running = inFlight.get(kind);
    if (running) return running;
    const promise = (async () => {
      const { data, correlationId } = await http.request<unknown>(paths[kind], signal ? { signal } : {});
      const entry: CachedReference = { items: itemsOf(kind, data), fetchedAt: now(), correlationId };
      await store.set(keyOf(kind), entry);
      return entry;
    })().finally(() => inFlight.delete(kind));
    inFlight.set(kind, promise);
    return promise;
  }

  async function read<K extends ReferenceKind>(kind: K, signal?: AbortSignal): Promise<ReferenceList<K>> {
    const cached = await store.get(keyOf(kind));
    const fresh = cached !== undefined && now() - cached.fetchedAt < ttlMs;
    const entry = fresh ? cached : await fetchList(kind, signal);
    return {
      [kind]: entry.items,
      correlationId: entry.correlationId,
      fetchedAt: entry.fetchedAt,
      fromCache: fresh,
    } as ReferenceList<K>;
  }

  return {
    channels: (o) => read("channels", o?.signal),
    jurisdictions: (o) => read("jurisdictions", o?.signal),
    products: (o) => read("products", o?.signal),
    targetMarkets: (o) => read("targetMarkets", o?.signal),
    async refresh(kinds = [...REFERENCE_KINDS], o) {
      await Promise.all(
        kinds.map(async (kind) => {
          await store.delete(keyOf(kind));
          await fetchList(kind, o?.signal);
        }),
      );
    },
  };
}
