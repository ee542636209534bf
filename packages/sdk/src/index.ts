/**
 * The Promotion Compliance Review SDK: `createClient(config)` gives one client for uploads, links,
 * promotions, reference data and webhooks, with one shared rate budget, plus the end-to-end flows.
 * Every error class, helper and type users handle is re-exported, so one import serves; the errors
 * package's internals (`@promo-review/errors/internal`) are not.
 * @packageDocumentation
 */
export {
  AbortError,
  AuthenticationError,
  CLIENT_CODES,
  type ClientCode,
  ConflictError,
  type ConstraintViolationDetail,
  combineRetryAfter,
  constraintViolationsOf,
  type ErrorCode,
  type ErrorDetail,
  type FieldErrorDetail,
  ForeignOriginError,
  type ForeignOriginErrorInit,
  fieldErrorsOf,
  isKnownCode,
  isPromoReviewError,
  KNOWN_CODES,
  type KnownCode,
  NetworkError,
  NotFoundError,
  notReadyUploadIdsOf,
  ParentNotFoundError,
  PayloadTooLargeError,
  PermissionError,
  PromoReviewError,
  type PromoReviewErrorInit,
  parseRetryAfter,
  RateLimitError,
  REDACTED,
  RedirectError,
  type RetryInfoDetail,
  redactSecrets,
  retryInfoMsOf,
  ServerError,
  TimeoutError,
  TransportError,
  type TransportErrorInit,
  UnexpectedResponseError,
  type UnknownDetail,
  type UploadNotReadyDetail,
  UploadNotReadyError,
  ValidationError,
  WebhookVerificationError,
  type WebhookVerificationErrorInit,
  type WebhookVerificationReason,
} from "@promo-review/errors";
export type {
  AppInfo,
  CallControl,
  Credentials,
  HttpResult,
  Logger,
  RequestEvent,
  RequestHooks,
  ResponseMetadata,
  RetryEvent,
  RetryPolicy,
  WithResponse,
} from "@promo-review/http";
export type { CaptureResponse, CaptureResult, ImportPollState } from "@promo-review/link-capture";
export type {
  Channel,
  CreatePromotionRequest,
  CreatePromotionResult,
  Decision,
  EvaluationStarted,
  Jurisdiction,
  NewVersionRequest,
  NewVersionResult,
  Product,
  Promotion,
  ReviewStatus,
  SubmitRequest,
  SubmitResult,
  TargetMarket,
  VariationEntry,
} from "@promo-review/promotions-core";
export {
  FILE_FORMATS,
  type FileFormat,
  validateCreatePromotion,
  validateNewVersion,
} from "@promo-review/promotions-core";
export {
  createRateBudget,
  keyIdOf,
  type RateBudget,
  type RateBudgetOptions,
} from "@promo-review/rate-budget";
// `sharedStore` (your own backend) is imported from @promo-review/store: the facade's bundle does not
// carry the shared-store helper for users of memory.
export {
  memoryStore,
  type SharedStoreOptions,
  type Store,
  type StoreAdapter,
  type StoreCall,
} from "@promo-review/store";
export {
  formatOf,
  startUpload,
  type Upload,
  type UploadProgress,
  type UploadResponse,
  type UploadResult,
  type UploadSource,
} from "@promo-review/upload-chunker";
export type { EvaluationCompletedEvent, EvaluationIssue, WebhookEvent } from "@promo-review/webhook-verify";
export type { BatchOutcome } from "./batch/outcome.js";
export type { BatchProgress } from "./batch/progress.js";
export type { Batch, BatchRunOptions } from "./batch/runner.js";
export {
  type ClientConfig,
  createClient,
  type Links,
  type PromoReviewClient,
  type Promotions,
  type Uploads,
} from "./client.js";
export {
  DEBUG_VARIABLE,
  ENVIRONMENT_VARIABLES,
  resolveSettings,
  type Settings,
  type SettingsInput,
} from "./config.js";
export type {
  EvaluateAndWaitOptions,
  EvaluationOutcome,
  FileOptions,
  Flows,
  PromotionFields,
  VersionFields,
} from "./flows.js";
