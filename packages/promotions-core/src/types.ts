import type { ObservedOperation } from "@promo-review/errors/observe";
import type { CallControl } from "@promo-review/http";
/**
 * The typed requests and results of the main API. Results keep every field the service sends
 * (unknown ones included, through the index signature) and always carry `correlationId`.
 */
import type { FileFormat, PromotionType, REVIEW_STATUSES } from "./limits.js";

export type { FileFormat, PromotionType } from "./limits.js";

/** Fields the spec leaves open: sent as given. */
type Open = { [field: string]: unknown };

/** One element of `variations`. */
export interface VariationEntry extends Open {
  channelIds?: string[];
  jurisdictionId?: string;
  /** The single upload of this variation. */
  uploadId?: string;
  /** Inline content. */
  content?: string;
  caption?: string;
  /** At most 1500 characters. */
  details?: string;
  linkedClaimIds?: string[];
  targetMarketIds?: string[];
  applyToAllTargetMarkets?: boolean;
}

/** The content of a promotion or version: inline text, or uploaded files. */
export interface ContentFields {
  /** `text` takes `content`; any other format takes `uploadIds`. */
  fileFormat?: FileFormat;
  /** Inline text or HTML; only with `fileFormat: "text"`. */
  content?: string;
  /** Ids from the file service (or a link capture's upload id); only with file-based formats. */
  uploadIds?: string[];
}

/** The creation request (POST /v1/promotions). Fields not listed here are sent untouched. */
export interface CreatePromotionRequest extends ContentFields, Open {
  promotionName: string;
  /** At least 1; ids from the products list. */
  productIds: string[];
  /** At least 1; ids from `GET /v1/channels`. */
  channelIds: string[];
  jurisdictionId?: string;
  /** A calendar date `YYYY-MM-DD` or an ISO 8601 date-time. */
  deadline?: string;
  paidPromotion?: boolean;
  /** Defaults to true on the service; false skips the compliance evaluation. */
  isFinancialPromotion?: boolean;
  evergreen?: boolean;
  /** An ISO 8601 date-time. */
  nextReviewDate?: string;
  caption?: string;
  /** At most 1500 characters. */
  details?: string;
  /** Sent as `promotionType` (the spec does not show the field's name; see docs/gaps.md). */
  promotionType?: PromotionType;
  linkedClaimIds?: string[];
  targetMarketIds?: string[];
  applyToAllTargetMarkets?: boolean;
  /** At most 20 keys of [A-Za-z0-9_-]{1,128}, values at most 1024 characters. No personal data. */
  metadata?: Record<string, string>;
  /** 2 to 20 entries; excludes top-level `uploadIds`, `content` and `fileFormat`. */
  variations?: VariationEntry[];
  /** At most 20 (after trimming and removing duplicates), each at most 255; `Var-*` and `TESTING` are reserved. */
  tags?: string[];
}

/** The new-version request (POST /v1/promotions/{id}/versions). */
export interface NewVersionRequest extends ContentFields, Open {
  /** At most 1500 characters. */
  details?: string;
  caption?: string;
  isFinancialPromotion?: boolean;
}

/** The submit request: may be empty. */
export interface SubmitRequest extends Open {
  /** The reviewer, by email (field name chosen by the SDK; see docs/gaps.md). */
  reviewerEmail?: string;
  /** A deadline override: a date or an ISO 8601 date-time. */
  deadline?: string;
}

/** What every result carries. */
export interface WithCorrelationId extends Open {
  /** The id to quote to support: the service's, else the one sent. */
  correlationId: string;
}

/** The creation response (201). */
export interface CreatePromotionResult extends WithCorrelationId {
  promotionId: string;
  versionId: string;
  /** The version number, derived by the service (1 for a new promotion). */
  version: number;
  /** The human-readable id, present when the service has one. */
  publicId?: string;
  /** The stored metadata echoed back (`{}` when the service sent none). */
  metadata: Record<string, string>;
  /**
   * The tags actually attached: empty when tags were requested but could not be attached (the
   * promotion exists all the same; add the tags separately). `[]` when the service sent none.
   */
  tags: string[];
}

/** Review status values (promotion level; `expired` only there). A closed enum: checked on every answer. */
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A version-level decision value (no `expired`). */
export type DecisionValue = Exclude<ReviewStatus, "expired">;

/** The promotion read view (GET /v1/promotions/{id}). */
export interface Promotion extends WithCorrelationId {
  promotionId: string;
  /** The version with the highest number, created through the API or in the web application. */
  latestVersionId: string;
  latestVersion: number;
  /** Review status of the latest version (a closed enum: any other value is `UNEXPECTED_RESPONSE`). */
  status: ReviewStatus;
  versionCount: number;
}

/** The new-version response (201). */
export interface NewVersionResult extends WithCorrelationId {
  versionId: string;
  /** The version number, e.g. 2 for the second version. */
  version: number;
}

/** The submit response. */
export interface SubmitResult extends WithCorrelationId {
  /** The version's review status after the submit (for example `pending`). */
  status: ReviewStatus | (string & {});
}

/** A version's review decision. */
export interface Decision extends WithCorrelationId {
  /** While under review: `in_review`, `pending` or `none` (a closed enum, checked). */
  decision: DecisionValue;
  /** Omitted while under review or before a decision is recorded. */
  decidedByUserId?: string;
  /** ISO 8601 date-time; omitted when unavailable. */
  decidedAt?: string;
  /** Omitted when none applies or it is unavailable. */
  rationale?: string;
}

/** The evaluation trigger's response (202). The result arrives by the evaluation-completed webhook. */
export interface EvaluationStarted extends WithCorrelationId {
  evaluationId: string;
  /** `processing` when triggered (checked). */
  status: "processing";
}

/** A result of one of the "latest version" helpers: which version the promotion named as latest. */
export interface OfLatest {
  /** The promotion's `latestVersionId` when the helper read it. */
  versionId: string;
  /** Its version number. */
  version: number;
}

/** Options every operation takes. */
export interface OperationOptions extends CallControl {
  /** Cancels the operation, including any wait between retries. */
  signal?: AbortSignal;
  /** Sent as `X-Correlation-ID` on every attempt of this operation; a fresh one when absent. */
  correlationId?: string;
  /**
   * The operation this one runs inside, as the client's `telemetry` started it (the facade's flows
   * pass theirs). Default: none (the observer then places it in its own context, as the
   * OpenTelemetry adapter does with the caller's active context).
   */
  parent?: ObservedOperation | undefined;
}

/**
 * An evaluation as read back (the polling fallback). The spec shows no read endpoint, so the path is
 * configurable (`evaluationPath`) and only `evaluationId` and `status` are relied on; any other field
 * the service sends (issues, metadata) is kept.
 */
export interface EvaluationRecord extends WithCorrelationId {
  evaluationId: string;
  status: "processing" | "completed" | (string & {});
  issues?: Array<Record<string, unknown>>;
  metadata?: Record<string, string>;
}

/** How a comment reply is retried while the parent comment is not indexed yet. */
export interface ReplyOptions extends OperationOptions {
  /** Attempts in all while the answer is `PARENT_NOT_FOUND`. Default 8. */
  maxAttempts?: number;
  /** First backoff step, doubling, full jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Ceiling of one backoff step. Default 5 s. */
  maxDelayMs?: number;
  /** Random source for the jitter, in [0, 1). */
  random?: () => number;
  /** Called before each wait, with the `ParentNotFoundError` that caused it. */
  onRetry?: (info: { attempt: number; error: Error; delayMs: number }) => void;
}

/** A posted reply: the service's answer, and how many attempts it took. */
export interface ReplyResult extends WithCorrelationId {
  /** The comment replied to: the service's echo, else the id that was sent (the answer's shape is not shown). */
  parentCommentId: string;
  replyAttempts: number;
}
