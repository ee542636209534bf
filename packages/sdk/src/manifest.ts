/**
 * Batch manifests: a batch of promotions described one a line, in JSON Lines or CSV, read from any
 * stream of text and checked line by line before anything is sent. A sub-path of its own, so a bundle
 * that never reads a manifest carries neither the reader nor the CSV parser.
 * @packageDocumentation
 */
export {
  BATCH_ID_METADATA,
  type BatchItem,
  ITEM_KEY_METADATA,
  MAX_ITEM_METADATA_KEYS,
} from "./batch/items.js";
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
export {
  type BatchPlan,
  type BudgetPlan,
  describePlan,
  type PlannedRequest,
  type PlanOptions,
  planBatch,
} from "./batch/plan.js";
export type { TextSource } from "./batch/text-lines.js";
