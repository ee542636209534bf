/**
 * Batches of promotions: the manifest (one promotion a line, JSON Lines or CSV, read from any stream of
 * text and checked line by line before anything is sent), the plan (requests per budget, least time),
 * and the journal (its interface, and where each item stands from its records). A sub-path of its own,
 * so a bundle that runs no batch carries neither the reader nor the CSV parser. The file journal is
 * Node's: `fileJournal` from `@promo-review/sdk/node`; `storeJournal` keeps one on any store of the kit
 * (also on `@promo-review/sdk/redis`, `/cloudflare`, `/deno` and `/upstash`).
 * @packageDocumentation
 */
export {
  BATCH_ID_METADATA,
  type BatchItem,
  ITEM_KEY_METADATA,
  MAX_ITEM_METADATA_KEYS,
} from "./batch/items.js";
export {
  BATCH_STEPS,
  type BatchJournal,
  type BatchStep,
  JOURNAL_BUSY,
  JOURNAL_DAMAGED,
  JOURNAL_UNAVAILABLE,
  type JournalLease,
  type JournalRecord,
  type LeaseOptions,
  type RecordedError,
  type StepIds,
  VISIBLE_STEPS,
} from "./batch/journal.js";
export {
  applyRecord,
  type ItemState,
  type JournalState,
  readState,
  type StepRef,
  stepName,
} from "./batch/journal-state.js";
export {
  type BatchTotals,
  checkManifest,
  type ManifestCheck,
  type ManifestEntry,
  type ManifestFormat,
  type ManifestOptions,
  readManifest,
  summarise,
} from "./batch/manifest.js";
export { describeProblem, type ManifestProblem } from "./batch/manifest-problem.js";
export { type ItemReport, reportOf } from "./batch/outcome.js";
export {
  type BatchPlan,
  type BudgetPlan,
  describePlan,
  type PlannedRequest,
  type PlanOptions,
  planBatch,
} from "./batch/plan.js";
export { type StoreJournalOptions, storeJournal } from "./batch/store-journal.js";
export type { TextSource } from "./batch/text-lines.js";
