/**
 * Every main-API operation of the Promotion Compliance Review service, typed, with client-side
 * validation of every stated rule before any request.
 * @packageDocumentation
 */

export { explainAmbiguous } from "./ambiguous.js";
export { DEFAULT_REPLY_PATH, postCommentReply } from "./comment-reply.js";
export * from "./limits.js";
export { createPromotionsClient, type PromotionsClient, type PromotionsClientOptions } from "./promotions.js";
export {
  type CachedReference,
  type Channel,
  createReferenceData,
  DEFAULT_REFERENCE_TTL_MS,
  type Jurisdiction,
  memoryReferenceStore,
  type Product,
  REFERENCE_KINDS,
  type ReferenceCacheOptions,
  type ReferenceData,
  type ReferenceItems,
  type ReferenceKind,
  type ReferenceList,
  type ReferenceReadOptions,
  type ReferenceResult,
  type ReferenceStore,
  type TargetMarket,
} from "./reference-cache.js";
export { isCalendarDate, isIsoDateTime } from "./schemas/dates.js";
export { isReservedTag } from "./schemas/tags.js";
export type * from "./types.js";
export {
  sendWaitingForUploads,
  type UploadWaiter,
  type UploadWaitOptions,
} from "./upload-wait.js";
export {
  toLocalIssues,
  validateCreatePromotion,
  validateId,
  validateNewVersion,
  validateSubmit,
} from "./validate.js";
