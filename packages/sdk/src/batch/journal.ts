/**
 * The journal of a batch: the runner writes an intent before each request that creates something
 * and the outcome (with the ids) after its answer, so a re-run knows what was done, what to do, and
 * which step may have reached the service without its answer being recorded. The interface is small
 * on purpose, an append-only log and one lease, so a file, Redis, a Durable Object or Deno KV can
 * each carry it.
 */

/**
 * The steps of an item, in the order they run. `upload` (one per file, by `index`) and `capture`
 * make nothing a person sees, so a lost answer means doing them again (an upload resumes from the
 * service's offset); `create`, `submit` and `evaluate` make a visible record, so a lost answer makes
 * them ambiguous.
 */
export const BATCH_STEPS = ["upload", "capture", "create", "submit", "evaluate"] as const;

/** One step of an item. */
export type BatchStep = (typeof BATCH_STEPS)[number];

/** The steps whose request, once it may have reached the service, must never be repeated silently. */
export const VISIBLE_STEPS: readonly BatchStep[] = ["create", "submit", "evaluate"];

/** What a journal records of a failed step: never a secret (errors are redacted when made). */
export interface RecordedError {
  code: string;
  message: string;
  status?: number | undefined;
  correlationId?: string | undefined;
}

/** The ids a step's answer gave, as strings (`uploadId`, `promotionId`, `versionId`, `evaluationId`, `status`). */
export type StepIds = Record<string, string>;

/** One record of a journal. Every record names the item by `key` but the first, which names the batch. */
export type JournalRecord =
  | { type: "batch"; batchId: string; at: number }
  | {
      type: "intent";
      key: string;
      step: BatchStep;
      index?: number | undefined;
      at: number;
      /**
       * True when the step was ambiguous and is repeated on purpose (`retryAmbiguous`): what it makes
       * may then exist twice at the service, and every report says so from here on.
       */
      retried?: boolean | undefined;
    }
  | { type: "done"; key: string; step: BatchStep; index?: number | undefined; at: number; ids: StepIds }
  | {
      type: "failed";
      key: string;
      step: BatchStep;
      index?: number | undefined;
      at: number;
      error: RecordedError;
    }
  /** A value a step keeps for its own resume (an upload's resume record), latest wins. */
  | {
      type: "note";
      key: string;
      step: BatchStep;
      index?: number | undefined;
      at: number;
      name: string;
      value: unknown;
    };

/** A lease on a journal: while held, no other runner runs its items. */
export interface JournalLease {
  /** Who holds it (the runner's id). */
  readonly owner: string;
  /** Aborted when the lease is lost (it expired and another runner took it over): stop at once. */
  readonly signal: AbortSignal;
  /** Gives the lease back. */
  release(): Promise<void>;
}

/** How to take a journal's lease. */
export interface LeaseOptions {
  /** The runner's id, unique per run. */
  owner: string;
  /** How long the lease lasts without renewal; the journal renews it while held (default 30 s). */
  ttlMs?: number | undefined;
  /** How long to wait for a lease another runner holds before refusing (default 0: refuse at once). */
  waitMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Where a batch keeps its journal. */
export interface BatchJournal {
  /** Every whole record, in the order written. */
  read(options?: { signal?: AbortSignal | undefined }): AsyncIterable<JournalRecord>;
  /** Appends one record; resolves once it is kept (as durably as the journal promises). */
  append(record: JournalRecord, options?: { signal?: AbortSignal | undefined }): Promise<void>;
  /**
   * Takes the journal's lease: at once when it is free or its holder is gone (expired, or a dead
   * process), after waiting up to `waitMs` for a live holder, else refused with `JOURNAL_BUSY`.
   */
  lease(options: LeaseOptions): Promise<JournalLease>;
  /** Releases what the journal holds (files, connections); the lease must be released first. */
  close(): Promise<void>;
}

/** The `code` of the error a journal gives when another runner holds its lease. */
export const JOURNAL_BUSY = "JOURNAL_BUSY";

/** The `code` of the error a journal gives when a record before its last one is damaged. */
export const JOURNAL_DAMAGED = "JOURNAL_DAMAGED";

/**
 * The `code` of the error a store journal gives when its store does not answer: the batch stops
 * (retryable: run it again once the store is back), since a step it cannot record must not be sent.
 */
export const JOURNAL_UNAVAILABLE = "JOURNAL_UNAVAILABLE";
