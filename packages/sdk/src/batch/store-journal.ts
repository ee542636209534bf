/**
 * A batch journal on a store of the kit (`@promo-review/store`: Redis and Redis Cluster, Durable
 * Objects, Deno KV, Upstash, memory), with no code per backend: everything is the store's `swap`, its
 * compare-and-set of a value, which every shared store fails closed (a batch never runs blind).
 *
 * The records are kept in chunks, one value each (`<prefix><name>:<n>`, one JSON record a line). An
 * append is one swap of the last chunk from what this journal last saw of it to that plus the record:
 * it lands whole or not at all (no torn record), and never over a record another writer added (the
 * swap then answers what is there, and the append tries again after it). A chunk holds at most
 * `chunkBytes` (Deno KV keeps 64 KiB a value); the next record starts the next chunk. The lease is a
 * value with the store's expiry (`<prefix><name>:lease`): taken by a swap from nothing, renewed by a
 * swap from the holder's own value every third of its time to live, so a holder that stopped (a
 * SIGKILL) frees it after at most that time, and one that finds it changed knows it lost it.
 */
import { PromoReviewError } from "@promo-review/errors";
import { sleep } from "@promo-review/http";
import type { Store } from "@promo-review/store";
import type { BatchJournal, JournalLease, JournalRecord, LeaseOptions } from "./journal.js";
import { JOURNAL_BUSY, JOURNAL_DAMAGED, JOURNAL_UNAVAILABLE } from "./journal.js";
import { renewedLease } from "./lease-renewal.js";

/** Options of {@link storeJournal}. */
export interface StoreJournalOptions {
  /** The journal's name, one per batch (the CLI uses the manifest's file name): its keys derive from it. */
  name: string;
  /** How long the records stay after a run last read or wrote them (default 30 days). */
  ttlMs?: number | undefined;
  /**
   * How long the lease lasts when its holder stops renewing it (default 30 s; `LeaseOptions.ttlMs`
   * wins). A re-run after a crash waits up to this long for the dead runner's lease.
   */
  leaseTtlMs?: number | undefined;
  /** The most bytes of records in one value (default 32 KiB: Deno KV keeps at most 64 KiB a value). */
  chunkBytes?: number | undefined;
  /** Where the keys start (default `"batch-journal:"`), within the store's own prefix for values. */
  prefix?: string | undefined;
}

const DAY_MS = 24 * 3600_000;
const DEFAULT_LEASE_TTL_MS = 30_000;
/** How often a runner waiting for a lease looks again. */
const RETRY_MS = 200;

/** What the lease's value holds: who, and until when (for the message of a runner refused). */
interface LeaseValue {
  owner: string;
  expiresAt: number;
}

/** The journal's last chunk as this journal last saw it. */
interface Tail {
  index: number;
  text: string | undefined;
}

/**
 * A batch journal on `store` (see the file's comment): pass it to `client.batch.run` as `journal`.
 * The store must offer `swap` (every store of the kit does); a store failing open is fine, since a
 * swap never fails open: a journal whose store does not answer stops the batch with `JOURNAL_UNAVAILABLE`.
 */
export function storeJournal(store: Store, options: StoreJournalOptions): BatchJournal {
  const { swap } = store;
  if (swap === undefined) {
    throw new PromoReviewError({
      code: "INVALID_OPTIONS",
      message: `storeJournal needs a store with swap (compare-and-set); ${store.where} has none (every store of @promo-review/store has it)`,
      retryable: false,
    });
  }
  if (options.name.length === 0) {
    throw new PromoReviewError({
      code: "INVALID_OPTIONS",
      message: "storeJournal needs a name",
      retryable: false,
    });
  }
  const ttlMs = options.ttlMs ?? 30 * DAY_MS;
  const chunkBytes = options.chunkBytes ?? 32 * 1024;
  const base = `${options.prefix ?? "batch-journal:"}${options.name}`;
  const chunkKey = (index: number) => `${base}:${index}`;
  const leaseKey = `${base}:lease`;
  const where = `The journal ${options.name} (${store.where})`;
  const bytes = (text: string) => new TextEncoder().encode(text).length;

  /** One swap, its failure said as the journal's. */
  const swapped = async (
    key: string,
    expected: string | undefined,
    value: string | undefined,
    ttl: number,
  ) => {
    try {
      return await swap.call(store, key, expected, value, ttl);
    } catch (error) {
      throw new PromoReviewError({
        code: JOURNAL_UNAVAILABLE,
        message: `${where} did not answer; the batch stops rather than run a step it cannot record`,
        retryable: true,
        cause: error,
      });
    }
  };

  // Appends go one at a time, in the order asked; `tail` is where the last one landed.
  let tail: Tail = { index: 0, text: undefined };
  let writing: Promise<unknown> = Promise.resolve();

  async function appendNow(line: string): Promise<void> {
    if (bytes(line) > chunkBytes) {
      throw new PromoReviewError({
        code: "INVALID_OPTIONS",
        message: `${where}: a record of ${bytes(line)} bytes is over chunkBytes (${chunkBytes})`,
        retryable: false,
      });
    }
    let { index, text } = tail;
    for (;;) {
      const next = text === undefined ? line : `${text}\n${line}`;
      if (text !== undefined && bytes(next) > chunkBytes) {
        // Full: the record starts the next chunk (which another writer may have started).
        index += 1;
        text = await swapped(chunkKey(index), undefined, undefined, ttlMs);
        continue;
      }
      const held = await swapped(chunkKey(index), text, next, ttlMs);
      // Landed; or a backend that tried its commit again found it had landed the first time (Deno KV).
      if (held === text || held === next) {
        tail = { index, text: next };
        return;
      }
      if (held === undefined) throw expired();
      text = held; // Another writer appended: this record goes after its.
    }
  }

  function expired(): PromoReviewError {
    return new PromoReviewError({
      code: JOURNAL_DAMAGED,
      message: `${where} lost a part of its records (it expired: ttlMs is ${ttlMs} ms after a run last used it); start a new journal`,
      retryable: false,
    });
  }

  async function* read(signal?: AbortSignal): AsyncGenerator<JournalRecord> {
    for (let index = 0; ; index++) {
      signal?.throwIfAborted();
      const text = await swapped(chunkKey(index), undefined, undefined, ttlMs);
      if (text === undefined) return;
      // A run that reads the records keeps them ttlMs from now (a swap from themselves to themselves).
      await swapped(chunkKey(index), text, text, ttlMs);
      tail = { index, text };
      for (const [n, line] of text.split("\n").entries()) {
        let record: JournalRecord;
        try {
          record = JSON.parse(line) as JournalRecord;
        } catch {
          throw new PromoReviewError({
            code: JOURNAL_DAMAGED,
            message: `${where} is damaged: record ${n + 1} of ${chunkKey(index)} is not JSON (a write to this store lands whole, so something else wrote it); keep it for inspection and start a new journal`,
            retryable: false,
          });
        }
        yield record;
      }
    }
  }

  return {
    read: (reading = {}) => read(reading.signal),
    append: (record, appending = {}) => {
      appending.signal?.throwIfAborted();
      const line = JSON.stringify(record);
      const written = writing.then(() => appendNow(line));
      writing = written.catch(() => undefined);
      return written;
    },
    lease: (lease) =>
      takeLease(
        { swap: swapped, key: leaseKey, where },
        { ...lease, ttlMs: lease.ttlMs ?? options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS },
      ),
    close: async () => {
      await writing;
    },
  };
}

/** What {@link takeLease} is given: the journal's swap, and the lease's key. */
interface LeasePlace {
  swap(
    key: string,
    expected: string | undefined,
    value: string | undefined,
    ttlMs: number,
  ): Promise<string | undefined>;
  key: string;
  where: string;
}

/** Takes the lease (a swap from nothing), waiting up to `waitMs` for a live holder, else `JOURNAL_BUSY`. */
async function takeLease(
  place: LeasePlace,
  options: LeaseOptions & { ttlMs: number },
): Promise<JournalLease> {
  const { ttlMs } = options;
  const waitUntil = Date.now() + (options.waitMs ?? 0);
  const mine = () =>
    JSON.stringify({ owner: options.owner, expiresAt: Date.now() + ttlMs } satisfies LeaseValue);
  for (;;) {
    options.signal?.throwIfAborted();
    const value = mine();
    const held = await place.swap(place.key, undefined, value, ttlMs);
    if (held === undefined) return holding(place, options.owner, ttlMs, value, mine);
    if (Date.now() >= waitUntil) throw busy(place.where, held);
    await sleep(Math.min(RETRY_MS, Math.max(1, waitUntil - Date.now())), options.signal);
  }
}

function busy(where: string, held: string): PromoReviewError {
  let holder: Partial<LeaseValue> = {};
  try {
    holder = JSON.parse(held) as LeaseValue;
  } catch {
    // Not a lease this journal wrote: said as it is below.
  }
  const until = typeof holder.expiresAt === "number" ? new Date(holder.expiresAt).toISOString() : "unknown";
  return new PromoReviewError({
    code: JOURNAL_BUSY,
    message: `${where} is in use by runner ${holder.owner ?? held} until ${until} at the latest (a runner that stopped without releasing it holds it until then): let it finish, or wait for it (a longer waitMs)`,
    retryable: true,
  });
}

/** The lease while held (see `lease-renewal.ts`): renewed by a swap from the holder's own value. */
function holding(
  place: LeasePlace,
  owner: string,
  ttlMs: number,
  first: string,
  fresh: () => string,
): JournalLease {
  let current = first;
  return renewedLease({
    owner,
    ttlMs,
    renew: async () => {
      const next = fresh();
      if ((await place.swap(place.key, current, next, ttlMs)) !== current) return false;
      current = next;
      return true;
    },
    // A store that is down keeps the lease until its expiry frees it.
    release: () =>
      place.swap(place.key, current, undefined, ttlMs).then(
        () => undefined,
        () => undefined,
      ),
    lost: () =>
      new PromoReviewError({
        code: JOURNAL_BUSY,
        message: `${place.where}: the lease of runner ${owner} expired and was taken over; this run stops`,
        retryable: false,
      }),
  });
}
