/**
 * The batch runner (`client.batch.run`): each item's steps in order (uploads or a capture, create,
 * submit, evaluate), items concurrently, every creating request written to the journal as an intent
 * before it is sent and as an outcome after, so a re-run goes on where the last one stopped. A step
 * that makes a visible record and has an intent without an outcome is ambiguous: reported, never
 * repeated unless `retryAmbiguous`. Uploads and captures left so are done again; an upload whose id
 * the journal kept resumes from the service's offset.
 */
import { AbortError, isPromoReviewError } from "@promo-review/errors";
import type { LinkCapture } from "@promo-review/link-capture";
import type { PromotionsClient } from "@promo-review/promotions-core";
import type { Uploader, UploadSource } from "@promo-review/upload-chunker";
import { BATCH_ID_METADATA, type BatchItem, ITEM_KEY_METADATA } from "./items.js";
import {
  type BatchJournal,
  type BatchStep,
  type JournalRecord,
  type RecordedError,
  type StepIds,
  VISIBLE_STEPS,
} from "./journal.js";
import { applyRecord, type ItemState, type JournalState, readState, stepName } from "./journal-state.js";
import { type BatchOutcome, outcomeOf } from "./outcome.js";
import { pooled } from "./pool.js";
import { type BatchProgress, BatchProgressMeter } from "./progress.js";

/** How a batch runs. */
export interface BatchRunOptions {
  /** Where the batch's steps are recorded; a re-run with the same journal goes on. */
  journal: BatchJournal;
  /**
   * Items run at once (default 16): later items' uploads and captures
   * overlap earlier ones' calls, so the main-API budget always has a request waiting.
   */
  concurrency?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Repeat the ambiguous steps the journal holds (each may then exist twice at the service). */
  retryAmbiguous?: boolean | undefined;
  /**
   * Opens an item's file (`files` entries) for upload. Required when an item has files; on Node,
   * `fileSource(path, { type })` from `@promo-review/sdk/node` makes one.
   */
  openFile?: ((path: string, item: BatchItem) => Promise<UploadSource> | UploadSource) | undefined;
  /** The number of items, when known, for the progress's ETA. */
  total?: number | undefined;
  /** Called after each item finishes, and while budgets wait. */
  onProgress?: ((progress: BatchProgress) => void) | undefined;
  /** How long to wait for another runner's lease on the journal (default 0: refuse at once). */
  leaseWaitMs?: number | undefined;
}

/** The batch part of the client. */
export interface Batch {
  /**
   * Runs `items` (valid manifest items: see `@promo-review/sdk/batch`), yielding one outcome per item
   * as it finishes. Holds the journal's lease for the run.
   */
  run(
    items: AsyncIterable<BatchItem> | Iterable<BatchItem>,
    options: BatchRunOptions,
  ): AsyncGenerator<BatchOutcome>;
}

/**
 * Items run at once by default. An item waiting on the link-capture budget (10 a minute: one every
 * 6 s) or on its upload holds its slot; with 4 slots, a few link items in a row left the main-API
 * budget idle (0.94 of its limit over a 200-item batch, bench/results/batch-throughput.md), with 16
 * enough items always have a main-API call ready.
 */
const DEFAULT_CONCURRENCY = 16;

/** What the runner is built from. */
export interface BatchParts {
  uploads: Omit<Uploader, "http">;
  links: Omit<LinkCapture, "http">;
  promotions: Omit<PromotionsClient, "reference" | "http">;
  /** Where the runner learns of budget waits, for the progress. */
  onBudgetWait?:
    | ((listener: (event: { budgets: string[]; waitMs: number }) => void) => () => void)
    | undefined;
}

/** Builds `client.batch`. */
export function createBatch(parts: BatchParts): Batch {
  return {
    async *run(items, options) {
      const owner = crypto.randomUUID();
      const lease = await options.journal.lease({
        owner,
        waitMs: options.leaseWaitMs,
        signal: options.signal,
      });
      // One signal for the run: the caller's, or the lease's once lost. A controller that listens to
      // both, not AbortSignal.any, as the house rule is (http's deadline.ts says why).
      const stop = new AbortController();
      // Each running item has its own signal, aborted with the run's: one listener per item's request
      // rather than `concurrency` of them on one signal (Node warns past 10 on one EventTarget).
      const itemStops = new Set<AbortController>();
      const abortAll = (reason: unknown) => {
        stop.abort(reason);
        for (const itemStop of itemStops) itemStop.abort(reason);
      };
      const sources = [options.signal, lease.signal].filter((source) => source !== undefined);
      const onAbort = (event: Event) => abortAll((event.target as AbortSignal).reason);
      for (const source of sources) {
        if (source.aborted) abortAll(source.reason);
        else source.addEventListener("abort", onAbort, { once: true });
      }
      const signal = stop.signal;
      const meter = new BatchProgressMeter(options.total);
      const stopListening = parts.onBudgetWait?.((event) => {
        meter.waited(event.budgets, event.waitMs);
        options.onProgress?.(meter.progress());
      });
      try {
        const state = await readState(options.journal.read({ signal }));
        if (state.batchId === undefined) {
          const batchId = crypto.randomUUID();
          await record(options.journal, state, { type: "batch", batchId, at: Date.now() }, signal);
        }
        const runOne = async (item: BatchItem) => {
          const itemStop = new AbortController();
          if (signal.aborted) itemStop.abort(signal.reason);
          itemStops.add(itemStop);
          try {
            return await runItem(parts, { ...options, signal: itemStop.signal, state }, item);
          } finally {
            itemStops.delete(itemStop);
          }
        };
        for await (const outcome of pooled(items, options.concurrency ?? DEFAULT_CONCURRENCY, runOne)) {
          meter.finished(outcome);
          options.onProgress?.(meter.progress());
          yield outcome;
        }
      } finally {
        for (const source of sources) source.removeEventListener("abort", onAbort);
        stopListening?.();
        await lease.release();
      }
    },
  };
}

type Run = BatchRunOptions & { signal: AbortSignal; state: JournalState };

/** Appends a record and folds it into the state the run reads. */
async function record(journal: BatchJournal, state: JournalState, entry: JournalRecord, signal: AbortSignal) {
  await journal.append(entry, { signal });
  applyRecord(state, entry);
}

/**
 * Appends one record of `item`'s step `ref` (its `type`, the item's key, the step, the time, then
 * `fields`) and folds it into the run's state.
 */
function write(
  run: Run,
  item: BatchItem,
  type: Exclude<JournalRecord["type"], "batch">,
  ref: { step: BatchStep; index?: number | undefined },
  fields: object,
): Promise<void> {
  const entry = { type, key: item.key, ...ref, at: Date.now(), ...fields } as JournalRecord;
  return record(run.journal, run.state, entry, run.signal);
}

/** The error as the journal keeps it: code, words, status and correlation id only. */
function recorded(error: unknown): RecordedError {
  if (isPromoReviewError(error)) {
    return {
      code: error.code,
      message: error.message,
      status: error.status,
      correlationId: error.correlationId,
    };
  }
  return { code: "ERROR", message: error instanceof Error ? error.message : String(error) };
}

/** Whether a failed request may still have been carried out (a lost answer, not a refusal). */
function mayHaveReached(error: unknown): boolean {
  return (error as { mayHaveReachedServer?: unknown }).mayHaveReachedServer === true;
}

class Stop extends Error {
  constructor(readonly outcome: BatchOutcome) {
    super(outcome.status);
  }
}

/** Runs one item's steps, in order, from where its journal stands. Never rejects but for an abort. */
async function runItem(parts: BatchParts, run: Run, item: BatchItem): Promise<BatchOutcome> {
  const { state, signal } = run;
  const existing = state.items.get(item.key);
  if (existing?.ambiguous && !run.retryAmbiguous) return outcomeOf(existing, "ambiguous");
  const itemState = (): ItemState => state.items.get(item.key) ?? { key: item.key, done: {}, notes: {} };
  const wasDone = existing !== undefined && isFinished(existing, item);

  /** One step: skipped when done, else intent, request, outcome. */
  const step = async (
    ref: { step: BatchStep; index?: number },
    send: () => Promise<StepIds>,
  ): Promise<StepIds> => {
    const done = itemState().done[stepName(ref)];
    if (done) return done;
    signal.throwIfAborted();
    // Repeating an ambiguous step is a choice the journal keeps: every later report names it.
    const retried = existing?.ambiguous !== undefined && stepName(existing.ambiguous) === stepName(ref);
    await write(run, item, "intent", ref, retried ? { retried: true } : {});
    let ids: StepIds;
    try {
      ids = await send();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      // A lost answer leaves the intent open: ambiguous for a visible step, redone for the others.
      if (mayHaveReached(error) && VISIBLE_STEPS.includes(ref.step)) {
        throw new Stop(outcomeOf(itemState(), "ambiguous"));
      }
      await write(run, item, "failed", ref, { error: recorded(error) });
      throw new Stop(outcomeOf(itemState(), "failed"));
    }
    await write(run, item, "done", ref, { ids });
    return ids;
  };

  try {
    const content = await contentOf(parts, run, item, step, itemState);
    const { key: _key, files: _files, link: _link, submit, evaluate, ...fields } = item;
    const created = await step({ step: "create" }, async () => {
      const result = await parts.promotions.create(
        {
          ...fields,
          ...content,
          metadata: { ...item.metadata, [ITEM_KEY_METADATA]: item.key, [BATCH_ID_METADATA]: state.batchId! },
        },
        { signal },
      );
      return { promotionId: result.promotionId, versionId: result.versionId };
    });
    const { promotionId, versionId } = created as { promotionId: string; versionId: string };
    if (submit) {
      await step({ step: "submit" }, async () => {
        const result = await parts.promotions.submit(promotionId, versionId, undefined, { signal });
        return { status: String(result.status) };
      });
    }
    if (evaluate) {
      await step({ step: "evaluate" }, async () => {
        const result = await parts.promotions.evaluate(promotionId, versionId, { signal });
        return { evaluationId: result.evaluationId };
      });
    }
    return { ...outcomeOf(itemState(), "done"), ...(wasDone ? { fromJournal: true } : {}) };
  } catch (error) {
    if (error instanceof Stop) return error.outcome;
    if (signal.aborted)
      throw signal.reason instanceof Error
        ? signal.reason
        : new AbortError({ code: "ABORTED", message: "The batch was aborted", mayHaveReachedServer: false });
    throw error;
  }
}

/** Whether the journal has every step the item asks for done. */
function isFinished(state: ItemState, item: BatchItem): boolean {
  return (
    state.done["create"] !== undefined &&
    (!item.submit || state.done["submit"] !== undefined) &&
    (!item.evaluate || state.done["evaluate"] !== undefined)
  );
}

type StepFn = (ref: { step: BatchStep; index?: number }, send: () => Promise<StepIds>) => Promise<StepIds>;

/** The item's content fields: uploads of its files, or its capture, or none (text, variations). */
async function contentOf(
  parts: BatchParts,
  run: Run,
  item: BatchItem,
  step: StepFn,
  itemState: () => ItemState,
): Promise<{ uploadIds?: string[]; fileFormat?: string }> {
  const { signal } = run;
  if (item.link !== undefined) {
    const ids = await step({ step: "capture" }, async () => {
      const capture = await parts.links.capture(item.link!, { signal });
      return { uploadId: capture.uploadId, fileFormat: capture.fileFormat };
    });
    return { uploadIds: [ids["uploadId"]!], fileFormat: item.fileFormat ?? ids["fileFormat"]! };
  }
  if (!item.files) return {};
  const uploadIds: string[] = [];
  for (const [index, path] of item.files.entries()) {
    const ids = await step({ step: "upload", index }, async () => {
      if (!run.openFile) {
        throw new RangeError(`item ${item.key} has files: pass openFile to batch.run`);
      }
      const source = await run.openFile(path, item);
      const noted = itemState().notes[`${stepName({ step: "upload", index })}:uploadId`];
      let recordedId = false;
      const onProgress = (progress: { uploadId: string }) => {
        if (recordedId || progress.uploadId === noted) return;
        recordedId = true;
        // Kept so a re-run resumes this upload from the service's offset instead of starting again.
        void write(
          run,
          item,
          "note",
          { step: "upload", index },
          { name: "uploadId", value: progress.uploadId },
        ).catch(() => undefined);
      };
      const upload = { signal, onProgress, waitForCompletion: true };
      const result =
        typeof noted === "string"
          ? await parts.uploads.resume(noted, source, upload).catch((error: unknown) => {
              // An upload the service no longer has is started again; any other failure is the step's.
              if (isPromoReviewError(error) && error.status === 404)
                return parts.uploads.upload(source, upload);
              throw error;
            })
          : await parts.uploads.upload(source, upload);
      return { uploadId: result.uploadId };
    });
    uploadIds.push(ids["uploadId"]!);
  }
  return { uploadIds, fileFormat: item.fileFormat };
}
