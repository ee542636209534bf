/**
 * Every main-API operation of the Promotion Compliance Review service, typed, with client-side
 * validation of every stated rule before any request.
 * @packageDocumentation
 */

export * from "./limits.js";
export * from "./operations/index.js";
export { createPromotionsClient, type PromotionsClient, type PromotionsClientOptions } from "./promotions.js";
export {
  type CachedReference,
  type Channel,
  DEFAULT_REFERENCE_TTL_MS,
  type Jurisdiction,
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
export type * from "./types.js";
export type { UploadWaiter, UploadWaitOptions } from "./upload-wait.js";
export { validateCreatePromotion, validateId, validateNewVersion, validateSubmit } from "./validate.js";
