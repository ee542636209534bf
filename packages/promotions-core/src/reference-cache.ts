/**
 * Reference data (channels, jurisdictions, products, target markets), cached. The spec tells callers
 * to cache it and refresh it daily, and every read costs main-API budget, so each list is fetched at
 * most once per `ttlMs` (default a day) per store, concurrent reads share one request, and
 * `refresh()` fetches anew on demand. The store is pluggable (a shared cache across processes, say).
 *
 * The cache heals: a list is checked against what the spec states (channel: id uuid and name;
 * jurisdiction: id uuid, name, countryCode; products and target markets: objects) and a malformed one
 * is an `UNEXPECTED_RESPONSE`, never cached; an empty list is returned but not cached, so the next read
 * asks again; and when a refresh fails (any error) while a good list is cached, that list is served
 * with `stale: true` and the failure in `error`.
 */
import type { PromoReviewError } from "@promo-review/errors";
import { type ResponseContext, unexpectedResponse } from "@promo-review/errors/internal";
import { type ObservedOperation, observed } from "@promo-review/errors/observe";
import {
  type CallControl,
  checkAnswer,
  type HttpClient,
  notRequested,
  poll,
  type ResponseMetadata,
  type RunnableDeclaration,
  sendOperation,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import type * as v from "valibot";
import { originOf } from "./observe.js";
import { refreshReference } from "./operations/composites.js";
import { channelSchema, jurisdictionSchema, openRecordSchema } from "./schemas/responses.js";

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
  /**
   * True when the list is older than `ttlMs` and is served only because fetching it again failed
   * (see `error`); the next read tries again.
   */
  stale: boolean;
  /** Why the refresh failed, when `stale`. */
  error?: PromoReviewError;
};

/**
 * How one read goes: `signal`, and `timeoutMs` and `retry` for the request it makes. A read that
 * finds the same list being fetched by a concurrent read takes that request's list, watching for it
 * on timers of its own within its own `signal`; when that request fails or takes over 10 s, it
 * makes its own request.
 */
export interface ReferenceReadOptions extends CallControl {
  /** Cancels the read. */
  signal?: AbortSignal | undefined;
  /**
   * The operation this read (`reference.channels`, ...) runs inside, as the client's `telemetry`
   * started it (a facade's flow). Default: none (the observer then places it in its own context, as
   * the OpenTelemetry adapter does with the caller's active context).
   */
  parent?: ObservedOperation | undefined;
}

/**
 * A list as read, with `$response` on the result and on its array. For a list fetched now it is that
 * request's; for one served from the cache (fresh or `stale`) it is the request that filled the cache
 * with `cached: true`, or, when another process filled a shared store, `status` 200, no headers,
 * `attempts: 0`, `durationMs: 0` and the cached correlation id, with `cached: true`.
 */
export type ReferenceResult<K extends ReferenceKind> = WithResponse<
  Omit<ReferenceList<K>, K> & { [P in K]: WithResponse<ReferenceItems[K][]> }
>;

/** The reference-data reader. */
export interface ReferenceData {
  channels(options?: ReferenceReadOptions): Promise<ReferenceResult<"channels">>;
  jurisdictions(options?: ReferenceReadOptions): Promise<ReferenceResult<"jurisdictions">>;
  products(options?: ReferenceReadOptions): Promise<ReferenceResult<"products">>;
  targetMarkets(options?: ReferenceReadOptions): Promise<ReferenceResult<"targetMarkets">>;
  /**
   * Fetches the named lists (default all four) now, replacing what is cached. A failure rejects and
   * keeps the cached list (reads then serve it as `stale` once it is older than `ttlMs`).
   */
  refresh(kinds?: ReferenceKind[], options?: ReferenceReadOptions): Promise<void>;
}

/**
 * A list's operation, as declared (its name, and its path unless `paths` configures another): the
 * steps of `reference.refresh` are the four lists' reads, in {@link REFERENCE_KINDS}' order.
 */
const declaredOf = (kind: ReferenceKind): RunnableDeclaration =>
  refreshReference.steps[REFERENCE_KINDS.indexOf(kind)]!;

/** A day, the refresh period the spec recommends. */
export const DEFAULT_REFERENCE_TTL_MS = 86_400_000;

/** What each list's items must be: what the spec states for channels and jurisdictions. */
const ITEM_SCHEMAS: Record<ReferenceKind, v.GenericSchema<unknown, unknown>> = {
  channels: channelSchema,
  jurisdictions: jurisdictionSchema,
  products: openRecordSchema,
  targetMarkets: openRecordSchema,
};

/**
 * Finds the list in a response: under its own name, as the spec shows for channels and jurisdictions;
 * tolerantly, the body itself when it is an array, else its only array field. No list at all (an
 * empty body, `null`, an object without one) is an `UNEXPECTED_RESPONSE`, and so is an item that
 * breaks what the spec states.
 */
function itemsOf(kind: ReferenceKind, body: unknown, answer: ResponseContext): unknown[] {
  let items: unknown[] | undefined;
  let field: string = kind;
  if (Array.isArray(body)) {
    items = body;
    field = "(body)";
  } else if (typeof body === "object" && body !== null) {
    const record = body as Record<string, unknown>;
    const arrays = Object.entries(record).filter(([, value]) => Array.isArray(value));
    const named = Array.isArray(record[kind]) ? ([kind, record[kind]] as const) : undefined;
    const only = arrays.length === 1 ? arrays[0] : undefined;
    const found = named ?? only;
    if (found) [field, items] = [found[0], found[1] as unknown[]];
  }
  if (items === undefined) {
    throw unexpectedResponse({ ...answer, field: kind, problem: "is required: an array of records" });
  }
  items.forEach((item, index) => {
    const at = field === "(body)" ? `${index}` : `${field}.${index}`;
    try {
      checkAnswer(ITEM_SCHEMAS[kind], item, answer);
    } catch (error) {
      const inner = (error as { field?: string }).field ?? "(body)";
      throw unexpectedResponse({
        ...answer,
        field: inner === "(body)" ? at : `${at}.${inner}`,
        problem: (error as PromoReviewError).fieldErrors[0]?.message ?? "is malformed",
      });
    }
  });
  return items;
}

/** A list just fetched, and the exchange that brought it. */
interface Fetched {
  entry: CachedReference;
  metadata: ResponseMetadata;
}

/**
 * A fetch of one list under way, as plain state its read writes when it ends. Never a promise that
 * another read awaits: in Cloudflare Workers a request may wait only on its own I/O and timers (one
 * awaiting another request's fetch is cancelled as hung, or fails with that request's abort), so a
 * read that finds a fetch under way watches this state on timers of its own.
 */
interface Filling {
  /** Set when the fetch succeeded. */
  fetched?: Fetched;
  done: boolean;
}

/** How long a read waits for another read's fetch of the same list before it fetches itself. */
const JOIN_WAIT_MS = 10_000;
/** Its first look again is after 5 ms, doubling up to 100 ms. */
const JOIN_BACKOFF = { initialMs: 5, maxMs: 100 };

/**
 * Waits, on its own timers and within `signal`, for a fetch another read made: its list, or
 * `undefined` when it failed or outlasted {@link JOIN_WAIT_MS} (the caller then fetches itself, so
 * another read's abort, deadline or failure is never this read's).
 */
async function joined(fill: Filling, signal: AbortSignal | undefined): Promise<Fetched | undefined> {
  // The end of the wait: not an error, the read then fetches itself.
  const outlasted = new Error("another read's fetch outlasted the wait");
  try {
    await poll(async () => (fill.done ? { done: true, value: undefined } : { done: false }), {
      backoff: JOIN_BACKOFF,
      signal,
      timeoutMs: JOIN_WAIT_MS,
      timeoutError: () => outlasted,
    });
  } catch (error) {
    if (error !== outlasted) throw error;
  }
  return fill.fetched;
}

/** Creates the cached reader over a main-API client. */
export function createReferenceData(http: HttpClient, options: ReferenceCacheOptions = {}): ReferenceData {
  const ttlMs = options.ttlMs ?? DEFAULT_REFERENCE_TTL_MS;
  const store = options.store ?? memoryReferenceStore();
  const now = options.now ?? Date.now;
  const filling = new Map<ReferenceKind, Filling>();
  // The metadata of the request that filled each list, kept beside the store (which holds plain JSON).
  const filledBy = new Map<ReferenceKind, ResponseMetadata>();
  // Keyed by base URL as well: a shared store must never serve staging data to production.
  const keyOf = (kind: ReferenceKind) => `promo-review:reference:${http.baseUrl}:${kind}`;

  const telemetry = http.telemetry;
  const origin = originOf(http);

  /**
   * The list, from a fetch another read has under way (waited for on this read's timers) or its own,
   * whose requests belong to `operation`.
   */
  async function fetchList(
    kind: ReferenceKind,
    read: ReferenceReadOptions = {},
    operation?: ObservedOperation,
  ): Promise<Fetched> {
    const running = filling.get(kind);
    const shared = running && (await joined(running, read.signal));
    return shared ?? fetchOwn(kind, read, operation);
  }

  async function fetchOwn(
    kind: ReferenceKind,
    read: ReferenceReadOptions,
    operation?: ObservedOperation,
  ): Promise<Fetched> {
    const fill: Filling = { done: false };
    filling.set(kind, fill);
    try {
      const configured = options.paths?.[kind];
      const declared = declaredOf(kind);
      const answer = await sendOperation<RunnableDeclaration, { items: unknown[] }>(
        http,
        declared,
        {
          ...read,
          // The declared paths are templates as they are; a configured one names no template.
          path: configured !== declared.path ? configured : undefined,
          read: (data, context) => ({ items: itemsOf(kind, data, context) }),
        },
        operation,
      );
      const { items, correlationId } = answer;
      const entry: CachedReference = { items, fetchedAt: now(), correlationId };
      // An empty list is answered but never cached: a service that briefly lost its data (or a proxy
      // answering for it) must not blank the list for a day.
      const metadata = answer.$response;
      if (items.length > 0) {
        await store.set(keyOf(kind), entry);
        filledBy.set(kind, metadata);
      }
      fill.fetched = { entry, metadata };
      return fill.fetched;
    } finally {
      fill.done = true;
      if (filling.get(kind) === fill) filling.delete(kind);
    }
  }

  const listOf = <K extends ReferenceKind>(
    kind: K,
    entry: CachedReference,
    metadata: ResponseMetadata,
    extra: object,
  ) => {
    // A copy of the array, so the `$response` of one read is never another read's.
    const items = withResponse([...entry.items], metadata);
    const list = { [kind]: items, correlationId: entry.correlationId, fetchedAt: entry.fetchedAt, ...extra };
    return withResponse(list, metadata) as unknown as ReferenceResult<K>;
  };

  /** What a cached list says of its exchange: the filling request's, if this client made it. */
  const cachedMetadata = (kind: ReferenceKind, entry: CachedReference): ResponseMetadata => {
    const filled = filledBy.get(kind);
    if (filled?.correlationId === entry.correlationId) return { ...filled, cached: true };
    return notRequested(entry.correlationId);
  };

  async function read<K extends ReferenceKind>(
    kind: K,
    options: ReferenceReadOptions = {},
    operation?: ObservedOperation,
  ): Promise<ReferenceResult<K>> {
    const cached = await store.get(keyOf(kind));
    if (cached !== undefined && now() - cached.fetchedAt < ttlMs) {
      return listOf(kind, cached, cachedMetadata(kind, cached), { fromCache: true, stale: false });
    }
    try {
      const { entry, metadata } = await fetchList(kind, options, operation);
      return listOf(kind, entry, metadata, { fromCache: false, stale: false });
    } catch (error) {
      // The last good list beats none; an abort is the caller's own choice and is not hidden.
      if (cached === undefined || cached.items.length === 0 || options.signal?.aborted) throw error;
      return listOf(kind, cached, cachedMetadata(kind, cached), { fromCache: true, stale: true, error });
    }
  }

  /** A read as operation `reference.<kind>`, saying whether the cache served it (then nothing is sent). */
  const traceRead = <K extends ReferenceKind>(kind: K, o: ReferenceReadOptions | undefined) =>
    observed(
      telemetry,
      { ...origin, name: declaredOf(kind).name, parent: o?.parent },
      (operation) => read(kind, o, operation),
      (list) => ({ "reference.fromCache": (list as { fromCache?: boolean }).fromCache }),
    );

  // One read per list, each its list's operation.
  const reads = Object.fromEntries(
    REFERENCE_KINDS.map((kind) => [kind, (o?: ReferenceReadOptions) => traceRead(kind, o)]),
  ) as unknown as Omit<ReferenceData, "refresh">;
  return {
    ...reads,
    refresh: (kinds = [...REFERENCE_KINDS], o) =>
      observed(
        telemetry,
        { ...origin, name: refreshReference.name, parent: o?.parent },
        async (operation) => {
          await Promise.all(
            // The cached list stays until a good one replaces it, so a failed refresh loses nothing.
            kinds.map((kind) => fetchList(kind, o, operation)),
          );
        },
      ),
  };
}
