/**
 * The promotions client: every main-API operation, each one correlated (one `X-Correlation-ID` for the
 * whole operation, its retries and waits included), validated before sending, and retried only where
 * that cannot duplicate work (see `@promo-review/http`): creation is resent after a 429 or a 409
 * `upload_not_ready` (both mean "not processed"), never after a failure that may have reached the
 * service.
 */

import { localValidationError } from "@promo-review/errors/internal";
import type { HttpClient, HttpClientSource, RetryPolicy, WithResponse } from "@promo-review/http";
import {
  callControl,
  httpClientFrom,
  newCorrelationId,
  responseMetadata,
  withResponse,
} from "@promo-review/http";
import type * as v from "valibot";
import { explainAmbiguous } from "./ambiguous.js";
import { checkAnswer } from "./check-answer.js";
import { DEFAULT_REPLY_PATH, postCommentReply } from "./comment-reply.js";
import { createReferenceData, type ReferenceCacheOptions, type ReferenceData } from "./reference-cache.js";
import {
  createPromotionResponseSchema,
  decisionResponseSchema,
  evaluationRecordResponseSchema,
  evaluationStartedResponseSchema,
  newVersionResponseSchema,
  promotionResponseSchema,
  submitResponseSchema,
} from "./schemas/responses.js";
import type {
  CreatePromotionRequest,
  CreatePromotionResult,
  Decision,
  EvaluationRecord,
  EvaluationStarted,
  NewVersionRequest,
  NewVersionResult,
  OfLatest,
  OperationOptions,
  Promotion,
  ReplyOptions,
  ReplyResult,
  SubmitRequest,
  SubmitResult,
} from "./types.js";
import { sendWaitingForUploads, type UploadWaiter } from "./upload-wait.js";
import { validateCreatePromotion, validateId, validateNewVersion, validateSubmit } from "./validate.js";

/**
 * How to reach the main API, and how careful to be: a ready `http` client (the facade shares one), or
 * `baseUrl` with the flat credentials (`apiKey`, `externalUserId`, `externalUserEmail`) and the
 * connection options of `@promo-review/http` (`fetch`, `timeoutMs`, `retry`, `trustedOrigins`,
 * `hooks`, `logger`, `appInfo`, and a rate `budget`), all unused when `http` is given.
 */
export interface PromotionsClientOptions extends HttpClientSource {
  /** The main API's base URL. Needed unless `http` is given. */
  baseUrl?: string;
  /** Further origins the main API may redirect to with credentials (default none: such a redirect fails). */
  trustedOrigins?: readonly string[];
  /** Per-attempt deadline of main-API requests, the answer's body included. Default 30 s. */
  timeoutMs?: number;
  /** Retry policy overrides for main-API requests (see `@promo-review/http`). */
  retry?: Partial<RetryPolicy> | false;
  /** Check every request body before sending. Default true; only turn off to test the service itself. */
  validate?: boolean;
  /** Reference-data caching: a day by default, in memory. */
  referenceCache?: ReferenceCacheOptions;
  /**
   * Waits until uploads are ready, used when creation answers 409 `upload_not_ready`. Pass
   * upload-chunker's (`(ids, { signal }) => Promise.all(ids.map((id) => uploader.waitForCompletion(id, { signal })))`;
   * the facade does), which reads the file service's status and costs no main-API budget. Without it,
   * the request is sent again with backoff, each attempt spending the main-API budget.
   */
  waitForUploads?: UploadWaiter;
  /** Longest total wait for uploads that are not ready. Default 120 000 ms. */
  uploadWaitTimeoutMs?: number;
  /** First backoff step when no `waitForUploads` is given. Default 500 ms. */
  uploadRetryDelayMs?: number;
  /**
   * Where an evaluation is read back (the polling fallback). Not shown in the spec; default
   * `/v1/promotions/{promotionId}/versions/{versionId}/evaluations/{evaluationId}`.
   */
  evaluationPath?: (promotionId: string, versionId: string, evaluationId: string) => string;
  /** Where a comment reply is posted. Not shown in the spec; default `DEFAULT_REPLY_PATH` (`/v1/comments`). */
  commentReplyPath?: (commentId: string) => string;
}

/** Every main-API operation. */
export interface PromotionsClient {
  /** Creates a promotion with its first version (POST /v1/promotions). */
  create(
    body: CreatePromotionRequest,
    options?: OperationOptions,
  ): Promise<WithResponse<CreatePromotionResult>>;
  /** Reads a promotion: its latest version (wherever it was created), status and version count. */
  get(promotionId: string, options?: OperationOptions): Promise<WithResponse<Promotion>>;
  /** Adds a version (POST /v1/promotions/{id}/versions). */
  createVersion(
    promotionId: string,
    body: NewVersionRequest,
    options?: OperationOptions,
  ): Promise<WithResponse<NewVersionResult>>;
  /** Submits a version for review. A safe retry: a second submit returns the current status. */
  submit(
    promotionId: string,
    versionId: string,
    body?: SubmitRequest,
    options?: OperationOptions,
  ): Promise<WithResponse<SubmitResult>>;
  /** Reads the review decision of any version of the promotion. */
  decision(
    promotionId: string,
    versionId: string,
    options?: OperationOptions,
  ): Promise<WithResponse<Decision>>;
  /** Starts an evaluation (202, status processing); the result comes by the evaluation-completed webhook. */
  evaluate(
    promotionId: string,
    versionId: string,
    options?: OperationOptions,
  ): Promise<WithResponse<EvaluationStarted>>;
  /**
   * Reads an evaluation back (status, and issues when finished). Prefer the evaluation-completed
   * webhook: every read spends the shared main-API budget.
   */
  evaluation(
    promotionId: string,
    versionId: string,
    evaluationId: string,
    options?: OperationOptions,
  ): Promise<WithResponse<EvaluationRecord>>;
  /**
   * Replies to the comment behind an issue (`commentId` from the webhook), retrying while the service
   * answers `PARENT_NOT_FOUND` because comment indexing is asynchronous.
   */
  replyToComment(
    commentId: string,
    body?: Record<string, unknown>,
    options?: ReplyOptions,
  ): Promise<WithResponse<ReplyResult>>;
  /** Reads the promotion's latest version from the service and submits it. */
  submitLatest(
    promotionId: string,
    body?: SubmitRequest,
    options?: OperationOptions,
  ): Promise<WithResponse<SubmitResult & OfLatest>>;
  /** Reads the promotion's latest version from the service and reads its decision. */
  decisionOfLatest(
    promotionId: string,
    options?: OperationOptions,
  ): Promise<WithResponse<Decision & OfLatest>>;
  /** Reference data, cached (a day by default). */
  reference: ReferenceData;
  /** The main-API client in use. */
  http: HttpClient;
}

const path = (...segments: string[]) => segments.map((s) => encodeURIComponent(s)).join("/");

/**
 * Creates the promotions client. Credentials are checked now; nothing is sent until an operation is
 * called, and no timer runs between operations.
 */
export function createPromotionsClient(options: PromotionsClientOptions): PromotionsClient {
  const http = httpClientFrom(options, {
    client: "createPromotionsClient",
    baseUrlField: "baseUrl",
    baseUrl: options.baseUrl,
  });
  const validate = options.validate ?? true;
  const uploadWait = {
    waitForUploads: options.waitForUploads,
    timeoutMs: options.uploadWaitTimeoutMs ?? 120_000,
    intervalMs: options.uploadRetryDelayMs ?? 500,
  };

  /**
   * Sends one request and checks its answer against what the spec states (`answer`): a breach is an
   * `UNEXPECTED_RESPONSE` naming the field, `operation` and the correlation id.
   */
  async function call<T>(
    url: string,
    init: { method?: string; json?: unknown; idempotent?: boolean },
    op: OperationOptions & { correlationId: string },
    answer: { operation: string; schema: v.GenericSchema<unknown, unknown> },
  ): Promise<WithResponse<T & { correlationId: string }>> {
    const result = await http.request<unknown>(url, {
      ...init,
      ...callControl(op),
      correlationId: op.correlationId,
      ...(op.signal ? { signal: op.signal } : {}),
    });
    const { data, correlationId, status } = result;
    const checked = checkAnswer<T>(answer.schema, data, {
      operation: answer.operation,
      correlationId,
      status,
      redact: http.redact,
    });
    // Unknown fields are kept: the body is spread as sent, with the correlation id added.
    return withResponse({ ...checked, correlationId }, responseMetadata(result, http.redact));
  }

  /** A non-idempotent POST that may meet 409 upload_not_ready: waited out, never resent blindly. */
  async function postWaitingForUploads<T>(
    url: string,
    json: unknown,
    what: string,
    op: OperationOptions,
    answer: { operation: string; schema: v.GenericSchema<unknown, unknown> },
  ) {
    const correlationId = op.correlationId ?? newCorrelationId();
    try {
      return await sendWaitingForUploads(
        () => call<T>(url, { method: "POST", json }, { ...op, correlationId }, answer),
        { ...uploadWait, operation: answer.operation },
        op.signal,
      );
    } catch (error) {
      throw explainAmbiguous(error, what, correlationId);
    }
  }

  const withId = (op: OperationOptions = {}) => ({
    ...op,
    correlationId: op.correlationId ?? newCorrelationId(),
  });

  const client: PromotionsClient = {
    http,
    // Every operation is async, so a local refusal is a rejected promise like any other failure.
    reference: createReferenceData(http, options.referenceCache),

    async create(body, op = {}) {
      const sent = validate ? validateCreatePromotion(body) : body;
      const data = await postWaitingForUploads<CreatePromotionResult>(
        "/v1/promotions",
        sent,
        "The promotion",
        op,
        { operation: "promotions.create", schema: createPromotionResponseSchema },
      );
      // The spec's response variants: tags may be missing or empty, publicId may be absent.
      const result = {
        ...data,
        metadata: data.metadata ?? {},
        tags: Array.isArray(data.tags) ? data.tags : [],
      };
      return withResponse(result, data.$response);
    },

    async get(promotionId, op) {
      validateId(promotionId, "promotionId");
      return call<Promotion>(`/v1/promotions/${path(promotionId)}`, {}, withId(op), {
        operation: "promotions.get",
        schema: promotionResponseSchema,
      });
    },

    async createVersion(promotionId, body, op = {}) {
      validateId(promotionId, "promotionId");
      const sent = validate ? validateNewVersion(body) : body;
      return postWaitingForUploads<NewVersionResult>(
        `/v1/promotions/${path(promotionId)}/versions`,
        sent,
        "The new version",
        op,
        { operation: "promotions.createVersion", schema: newVersionResponseSchema },
      );
    },

    async submit(promotionId, versionId, body = {}, op) {
      validateId(promotionId, "promotionId");
      validateId(versionId, "versionId");
      const sent = validate ? validateSubmit(body) : body;
      // The service documents submit as a safe retry, so it is retried like a GET.
      return call<SubmitResult>(
        `/v1/promotions/${path(promotionId)}/versions/${path(versionId)}/submit`,
        { method: "POST", json: sent, idempotent: true },
        withId(op),
        { operation: "promotions.submit", schema: submitResponseSchema },
      );
    },

    async decision(promotionId, versionId, op) {
      validateId(promotionId, "promotionId");
      validateId(versionId, "versionId");
      return call<Decision>(
        `/v1/promotions/${path(promotionId)}/versions/${path(versionId)}/decision`,
        {},
        withId(op),
        { operation: "promotions.decision", schema: decisionResponseSchema },
      );
    },

    async evaluate(promotionId, versionId, op) {
      validateId(promotionId, "promotionId");
      validateId(versionId, "versionId");
      return call<EvaluationStarted>(
        `/v1/promotions/${path(promotionId)}/versions/${path(versionId)}/evaluate`,
        { method: "POST" },
        withId(op),
        { operation: "promotions.evaluate", schema: evaluationStartedResponseSchema },
      );
    },

    async evaluation(promotionId, versionId, evaluationId, op) {
      validateId(promotionId, "promotionId");
      validateId(versionId, "versionId");
      validateId(evaluationId, "evaluationId");
      const url = options.evaluationPath
        ? options.evaluationPath(promotionId, versionId, evaluationId)
        : `/v1/promotions/${path(promotionId)}/versions/${path(versionId)}/evaluations/${path(evaluationId)}`;
      return call<EvaluationRecord>(url, {}, withId(op), {
        operation: "promotions.evaluation",
        schema: evaluationRecordResponseSchema,
      });
    },

    async replyToComment(commentId, body = {}, op = {}) {
      if (typeof commentId !== "string" || commentId.trim() === "") {
        throw localValidationError([{ field: "commentId", message: "is required (the issue's commentId)" }]);
      }
      const url = options.commentReplyPath ? options.commentReplyPath(commentId) : DEFAULT_REPLY_PATH;
      return postCommentReply(http, url, commentId, body, withId(op));
    },

    // Versions are also created in the web application, so "latest" is always read from the service.
    async submitLatest(promotionId, body = {}, op) {
      const one = withId(op);
      const promotion = await client.get(promotionId, one);
      const result = await client.submit(promotionId, promotion.latestVersionId, body, one);
      const latest = { ...result, versionId: promotion.latestVersionId, version: promotion.latestVersion };
      return withResponse(latest, result.$response);
    },

    async decisionOfLatest(promotionId, op) {
      const one = withId(op);
      const promotion = await client.get(promotionId, one);
      const result = await client.decision(promotionId, promotion.latestVersionId, one);
      const latest = { ...result, versionId: promotion.latestVersionId, version: promotion.latestVersion };
      return withResponse(latest, result.$response);
    },
  };
  return client;
}
