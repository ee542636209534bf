/**
 * The promotions client: every main-API operation, each one correlated (one `X-Correlation-ID` for the
 * whole operation, its retries and waits included), validated before sending, and retried only where
 * that cannot duplicate work (see `@promo-review/http`): creation is resent after a 429 or a 409
 * `upload_not_ready` (both mean "not processed"), never after a failure that may have reached the
 * service.
 */

import { localValidationError } from "@promo-review/errors/internal";
import { observed } from "@promo-review/errors/observe";
import type {
  HttpClient,
  HttpClientSource,
  RetryPolicy,
  RunnableDeclaration,
  WithResponse,
} from "@promo-review/http";
import { httpClientFrom, newCorrelationId, withResponse } from "@promo-review/http";
import { untilParentIndexed } from "./comment-reply.js";
import { type PromotionsCore, promotionsCoreOf } from "./core.js";
import { type Ids, idDetails, originOf } from "./observe.js";
import {
  type CompositeDeclaration,
  decisionOfLatestVersion,
  submitLatestVersion,
} from "./operations/composites.js";
import {
  getDecision,
  getEvaluation,
  getPromotion,
  replyToComment as replyToCommentOperation,
  startEvaluation,
  submitVersion,
} from "./operations/index.js";
import { createReferenceData, type ReferenceCacheOptions, type ReferenceData } from "./reference-cache.js";
import { runDeclared } from "./run-declared.js";
import { promotionsCreate } from "./standalone/promotions-create.js";
import { promotionsCreateVersion } from "./standalone/promotions-create-version.js";
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
import type { UploadWaiter } from "./upload-wait.js";

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
  validate?: boolean | undefined;
  /** Reference-data caching: a day by default, in memory. */
  referenceCache?: ReferenceCacheOptions | undefined;
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
  /** Where a comment reply is posted. Not shown in the spec; default `/v1/comments` (the `replyToComment` declaration's). */
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

/** What every operation of one client shares. */
interface Shared extends PromotionsCore {
  options: PromotionsClientOptions;
}

/** The operation's options with its correlation id: the caller's, else a fresh one. */
const withId = (op: OperationOptions = {}) => ({
  ...op,
  correlationId: op.correlationId ?? newCorrelationId(),
});

/**
 * Replies to a comment, at `commentReplyPath` when one is configured. Comment indexing is
 * asynchronous, so a reply sent right after the webhook may be answered `PARENT_NOT_FOUND`: that
 * means nothing was created, so the reply is sent again with backoff (honouring a `Retry-After`)
 * under the same correlation id until it is accepted, `maxAttempts` is spent (the last
 * `ParentNotFoundError` is thrown) or the signal aborts. Any other error is thrown at once.
 */
async function replyToComment(
  shared: Shared,
  commentId: string,
  body: Record<string, unknown> = {},
  op: ReplyOptions = {},
): Promise<WithResponse<ReplyResult>> {
  const { commentReplyPath } = shared.options;
  let replyAttempts = 0;
  const answer = await runDeclared<Record<string, unknown>>(shared.http, replyToCommentOperation, {
    ...op,
    params: { commentId },
    body: () => {
      if (typeof commentId !== "string" || commentId.trim() === "") {
        throw localValidationError([{ field: "commentId", message: "is required (the issue's commentId)" }]);
      }
      return { ...body, parentCommentId: commentId };
    },
    validate: shared.validate,
    // A configured path has no template the spec states: observers name the request by its method.
    path: commentReplyPath && (() => commentReplyPath(commentId)),
    // The reply's answer is not shown in the spec: taken as sent, whatever its shape (even none).
    read: (data) => ({ ...(data as object) }),
    around: (send) =>
      untilParentIndexed((attempt) => {
        replyAttempts = attempt;
        return send();
      }, op),
  });
  // The reply's response shape is not shown: the parent is the one sent unless the service says.
  return withResponse({ parentCommentId: commentId, ...answer, replyAttempts }, answer.$response);
}

/**
 * Creates the promotions client. Credentials are checked now; nothing is sent until an operation is
 * called, and no timer runs between operations. Every operation is async, so a local refusal is a
 * rejected promise like any other failure.
 *
 * With a `telemetry` observer (its own option, or the shared `http` client's), each operation is
 * published, named for its method (`promotions.create`, `promotions.submit`, ...), inside `parent`
 * when given, with the uuid ids it acts on and, once answered, those its result names; its requests
 * belong to it. A local refusal ends it with the `ValidationError` before anything is sent.
 */
export function createPromotionsClient(options: PromotionsClientOptions): PromotionsClient {
  const http = httpClientFrom(options, {
    client: "createPromotionsClient",
    baseUrlField: "baseUrl",
    baseUrl: options.baseUrl,
  });
  // What the slim path's core holds, made the same way: the same defaults for both clients.
  const shared: Shared = { ...promotionsCoreOf(http, options), options };
  const { validate } = shared;
  /** Operation `declared` with the ids its path names: one request, its answer checked. */
  const send = <T>(declared: RunnableDeclaration, params: Ids, op: OperationOptions = {}, body?: unknown) =>
    runDeclared<T>(http, declared, { ...op, params, body, validate });
  /**
   * Runs `composite` on the promotion's latest version, read from the service first (its first step):
   * versions are also created in the web application, so "latest" is never assumed. Published under
   * the composite's name, which no single declaration states; both steps run inside it, under one
   * correlation id.
   */
  const onLatest = <T extends object>(
    { name, steps: [read, step] }: CompositeDeclaration<readonly [RunnableDeclaration, RunnableDeclaration]>,
    promotionId: string,
    op: OperationOptions | undefined,
    body?: unknown,
  ): Promise<WithResponse<T & OfLatest>> =>
    observed(
      http.telemetry,
      {
        ...originOf(http),
        name,
        // Built only when observed: without an observer no observation code runs, not even this.
        details: http.telemetry ? idDetails({ promotionId }) : undefined,
        parent: op?.parent,
      },
      async (parent) => {
        const one = { ...withId(op), parent };
        const promotion = await send<Promotion>(read, { promotionId }, one);
        const versionId = promotion.latestVersionId;
        const result = await send<T>(step, { promotionId, versionId }, one, body);
        return withResponse({ ...result, versionId, version: promotion.latestVersion }, result.$response);
      },
      (result) => idDetails(result),
    );

  const client: PromotionsClient = {
    http,
    reference: createReferenceData(http, options.referenceCache),

    // The slim path's functions are these operations: one implementation for both clients.
    create: (body, op) => promotionsCreate(shared, body, op),

    get: (promotionId, op) => send<Promotion>(getPromotion, { promotionId }, op),

    createVersion: (promotionId, body, op) => promotionsCreateVersion(shared, promotionId, body, op),

    // The service documents submit as a safe retry, so it is retried like a GET (its declaration says so).
    submit: (promotionId, versionId, body = {}, op) =>
      send<SubmitResult>(submitVersion, { promotionId, versionId }, op, body),

    decision: (promotionId, versionId, op) => send<Decision>(getDecision, { promotionId, versionId }, op),

    evaluate: (promotionId, versionId, op) =>
      send<EvaluationStarted>(startEvaluation, { promotionId, versionId }, op),

    // Read back at `evaluationPath` when one is configured (then no template: the spec shows none).
    evaluation: (promotionId, versionId, evaluationId, op) => {
      const { evaluationPath } = options;
      return runDeclared<EvaluationRecord>(http, getEvaluation, {
        ...op,
        params: { promotionId, versionId, evaluationId },
        path: evaluationPath && (() => evaluationPath(promotionId, versionId, evaluationId)),
      });
    },

    replyToComment: (commentId, body, op) => replyToComment(shared, commentId, body, op),

    submitLatest: (promotionId, body = {}, op) =>
      onLatest<SubmitResult>(submitLatestVersion, promotionId, op, body),

    decisionOfLatest: (promotionId, op) => onLatest<Decision>(decisionOfLatestVersion, promotionId, op),
  };
  return client;
}
