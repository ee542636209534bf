// What both package entries export besides the crypto-bound functions: types and runtime-neutral helpers.

export { WebhookVerificationError, type WebhookVerificationReason } from "@promo-review/errors";
export type { VerifyWebhookOptions, WebhookApi } from "./bind.js";
export type { RawBody } from "./body.js";
export type { SignedContent } from "./crypto-backend.js";
export type { HeadersInput, WebhookHeaders } from "./headers.js";
export type { NodeRequestLike, NodeResponseLike } from "./node-handler.js";
export {
  type EvaluationCompletedData,
  type EvaluationCompletedEvent,
  type EvaluationIssue,
  type EvaluationStatus,
  isEvaluationCompleted,
  type PayloadWarning,
  type UnknownWebhookEvent,
  type UntypedWebhookEvent,
  type WebhookEvent,
} from "./payload.js";
export type { HandlerOptions, WebhookHandlerFn } from "./receive.js";
export { createMemoryReplayStore, type MemoryReplayStoreOptions, type ReplayStore } from "./replay-store.js";
export type { SignatureScheme } from "./schemes.js";
export type { WebhookSecret } from "./secrets.js";
export type { SignOptions } from "./sign.js";
export type {
  EventKind,
  EventOf,
  FetchWebhookVerifier,
  VerifierMethods,
  WebhookListener,
  WebhookVerifier,
} from "./verifier.js";
export type { VerifiedDelivery, VerifiedSignature, WebhookInput, WebhookVerifierOptions } from "./verify.js";
