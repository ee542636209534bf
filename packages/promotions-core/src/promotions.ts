/**
 * The promotions client: every main-API operation, each one correlated (one `X-Correlation-ID` for the
 * whole operation, its retries and waits included), validated before sending, and retried only where
 * that cannot duplicate work (see `@promo-review/http`): creation is resent after a 429 or a 409
 * `upload_not_ready` (both mean "not processed"), never after a failure that may have reached the
 * service.
 */

import { localValidationError } from "@promo-review/errors/internal";
import { type ObservedOperation, observed } from "@promo-review/errors/observe";
import type {
  HttpClient,
  HttpClientSource,
  OperationDeclaration,
  RequestOptions,
  RetryPolicy,
  WithResponse,
} from "@promo-review/http";
import {
  callControl,
  checkAnswer,
  httpClientFrom,
  newCorrelationId,
  responseMetadata,
  withResponse,
} from "@promo-review/http";
import type * as v from "valibot";
import { explainAmbiguous } from "./ambiguous.js";
import { DEFAULT_REPLY_PATH, postCommentReply } from "./comment-reply.js";
import { promotionsCoreOf } from "./core.js";
import { type Ids, idDetails, originOf } from "./observe.js";
import {
  createPromotion as createPromotionOperation,
  createVersion as createVersionOperation,
  getDecision,
  getEvaluation,
  getPromotion,
  startEvaluation,
  submitVersion,
} from "./operations/index.js";
import { createReferenceData, type ReferenceCacheOptions, type ReferenceData } from "./reference-cache.js";
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
import { sendWaitingForUploads, type UploadWaiter, type UploadWaitOptions } from "./upload-wait.js";
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

/** What every operation of one client shares. */
interface Shared {
  http: HttpClient;
  options: PromotionsClientOptions;
  /** Whether request bodies are checked before sending (`options.validate`, default true). */
  validate: boolean;
  uploadWait: UploadWaitOptions;
}

/** What the spec states about an answer, as a schema it must keep. */
type AnswerSchema = v.GenericSchema<unknown, unknown>;

/** An operation of this client, as declared in `./operations`: its answer checked against `response`. */
type Declared = OperationDeclaration<unknown, AnswerSchema>;

/** The operation's options with its correlation id: the caller's, else a fresh one. */
const withId = (op: OperationOptions = {}) => ({
  ...op,
  correlationId: op.correlationId ?? newCorrelationId(),
});

/**
 * `template` (a spec path such as `/v1/promotions/{promotionId}/versions/{versionId}`) with each id
 * checked to be a uuid, in order (so a typo costs no request), and put in: a uuid holds only hex digits
 * and hyphens, so it needs no encoding. A missing `versionId` (from JavaScript) is refused, never read
 * as "the promotion": `/v1/promotions/{id}/submit` is no spec path.
 */
const fill = (template: string, ids: Ids): string =>
  template.replace(/\{(\w+)\}/g, (_, field: string) => validateId(ids[field as keyof Ids], field));

/**
 * What one request of an operation adds to the defaults: its method, body and retry safety, the
 * operation it belongs to (`parent`, as the client's `telemetry` started it) and the spec's `urlTemplate`.
 */
type CallInit = Pick<RequestOptions, "method" | "json" | "idempotent" | "parent" | "urlTemplate">;

/**
 * Sends one request of `declared` to `url` (its path with the ids put in), as declared (its method,
 * its retry safety, its path as the `urlTemplate`, unless `init` says otherwise), and checks its answer
 * against the declared `response`: a breach is an `UNEXPECTED_RESPONSE` naming the field, the
 * operation and the correlation id. The request carries the operation's correlation id, else a fresh one.
 */
async function call<T>(
  http: HttpClient,
  declared: Declared,
  url: string,
  op: OperationOptions = {},
  init: CallInit = {},
): Promise<WithResponse<T & { correlationId: string }>> {
  const { name: operation, response: schema } = declared;
  const result = await http.request<unknown>(url, {
    method: declared.method,
    idempotent: declared.resend === "safe",
    urlTemplate: declared.path,
    ...init,
    ...callControl(op),
    correlationId: op.correlationId ?? newCorrelationId(),
    signal: op.signal,
  });
  const { data, correlationId, status } = result;
  const checked = checkAnswer<T>(schema, data, {
    operation,
    correlationId,
    status,
    redact: http.redact,
  });
  // Unknown fields are kept: the body is spread as sent, with the correlation id added.
  return withResponse({ ...checked, correlationId }, responseMetadata(result, http.redact));
}

/**
 * A non-idempotent POST (`declared`, to `url`) that may meet 409 upload_not_ready: waited out, never
 * resent blindly.
 */
async function postWaitingForUploads<T>(
  shared: Shared,
  declared: Declared,
  url: string,
  op: OperationOptions,
  json: unknown,
  what: string,
  parent: ObservedOperation | undefined,
) {
  const correlationId = op.correlationId ?? newCorrelationId();
  const operation = declared.name;
  try {
    return await sendWaitingForUploads(
      () => call<T>(shared.http, declared, url, { ...op, correlationId }, { json, parent }),
      { ...shared.uploadWait, operation, parent, telemetry: shared.http.telemetry },
      op.signal,
    );
  } catch (error) {
    throw explainAmbiguous(error, what, correlationId);
  }
}

/** Creates a promotion; the spec's response variants are evened out (tags may be missing, metadata too). */
async function createPromotion(
  shared: Shared,
  body: CreatePromotionRequest,
  op: OperationOptions = {},
  parent?: ObservedOperation,
): Promise<WithResponse<CreatePromotionResult>> {
  const sent = shared.validate ? validateCreatePromotion(body) : body;
  const data = await postWaitingForUploads<CreatePromotionResult>(
    shared,
    createPromotionOperation,
    createPromotionOperation.path,
    op,
    sent,
    "The promotion",
    parent,
  );
  // The spec's response variants: tags may be missing or empty, publicId may be absent.
  const result = {
    ...data,
    metadata: data.metadata ?? {},
    tags: Array.isArray(data.tags) ? data.tags : [],
  };
  return withResponse(result, data.$response);
}

/** Replies to a comment, at `commentReplyPath` when one is configured. */
async function replyToComment(
  shared: Shared,
  commentId: string,
  body: Record<string, unknown> = {},
  op: ReplyOptions = {},
  parent?: ObservedOperation,
): Promise<WithResponse<ReplyResult>> {
  if (typeof commentId !== "string" || commentId.trim() === "") {
    throw localValidationError([{ field: "commentId", message: "is required (the issue's commentId)" }]);
  }
  const { commentReplyPath } = shared.options;
  const url = commentReplyPath ? commentReplyPath(commentId) : DEFAULT_REPLY_PATH;
  // A configured path has no template the spec states: observers name the request by its method.
  return postCommentReply(shared.http, url, commentId, body, withId(op), {
    parent,
    urlTemplate: commentReplyPath ? undefined : url,
  });
}

/**
 * Runs `step` on the promotion's latest version, read from the service first: versions are also
 * created in the web application, so "latest" is never assumed. One correlation id covers both calls,
 * and both operations run inside `parent`.
 */
async function onLatest<T extends object>(
  client: PromotionsClient,
  promotionId: string,
  op: OperationOptions | undefined,
  parent: ObservedOperation | undefined,
  step: (versionId: string, op: OperationOptions) => Promise<WithResponse<T>>,
): Promise<WithResponse<T & OfLatest>> {
  const one = { ...withId(op), parent };
  const promotion = await client.get(promotionId, one);
  const result = await step(promotion.latestVersionId, one);
  const latest = { ...result, versionId: promotion.latestVersionId, version: promotion.latestVersion };
  return withResponse(latest, result.$response);
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
  const telemetry = http.telemetry;
  const origin = originOf(http);
  // What the slim path's core holds, made the same way: the same defaults for both clients.
  const shared: Shared = { ...promotionsCoreOf(http, options), options };
  const { validate } = shared;
  /**
   * Runs `work` as operation `name` (`promotions.create`), inside the caller's `parent`, with the ids it was
   * given and, once it answered, those its result names.
   */
  const run = <T extends object>(
    name: string,
    ids: Ids,
    op: OperationOptions | undefined,
    work: (operation: ObservedOperation | undefined) => Promise<T>,
  ) =>
    observed(
      telemetry,
      {
        ...origin,
        name,
        // Built only when observed: without an observer no observation code runs, not even this.
        details: telemetry ? idDetails(ids) : undefined,
        parent: op?.parent,
      },
      work,
      // A reply's own `commentId` is not the comment replied to, which the operation already names.
      (result) => idDetails({ ...result, commentId: undefined }),
    );
  /**
   * Operation `declared`: one request to its path with `ids` put in, its answer checked against its
   * `response`. `json` (the body, checked) is made once the ids are.
   */
  const send = <T>(declared: Declared, ids: Ids, op: OperationOptions | undefined, json?: () => unknown) =>
    run(declared.name, ids, op, (parent) => {
      const url = fill(declared.path, ids);
      return call<T>(http, declared, url, op, { ...(json ? { json: json() } : {}), parent });
    });

  const client: PromotionsClient = {
    http,
    reference: createReferenceData(http, options.referenceCache),

    create: (body, op) =>
      run(createPromotionOperation.name, {}, op, (parent) => createPromotion(shared, body, op, parent)),

    get: (promotionId, op) => send<Promotion>(getPromotion, { promotionId }, op),

    createVersion: (promotionId, body, op = {}) =>
      run(createVersionOperation.name, { promotionId }, op, (parent) =>
        postWaitingForUploads<NewVersionResult>(
          shared,
          createVersionOperation,
          fill(createVersionOperation.path, { promotionId }),
          op,
          validate ? validateNewVersion(body) : body,
          "The new version",
          parent,
        ),
      ),

    // The service documents submit as a safe retry, so it is retried like a GET (its declaration says so).
    submit: (promotionId, versionId, body = {}, op) =>
      send<SubmitResult>(submitVersion, { promotionId, versionId }, op, () =>
        validate ? validateSubmit(body) : body,
      ),

    decision: (promotionId, versionId, op) => send<Decision>(getDecision, { promotionId, versionId }, op),

    evaluate: (promotionId, versionId, op) =>
      send<EvaluationStarted>(startEvaluation, { promotionId, versionId }, op),

    // Read back at `evaluationPath` when one is configured (then no template: the spec shows none).
    evaluation: (promotionId, versionId, evaluationId, op) =>
      options.evaluationPath
        ? run(getEvaluation.name, { promotionId, versionId, evaluationId }, op, (parent) => {
            fill(getEvaluation.path, { promotionId, versionId, evaluationId });
            const url = options.evaluationPath!(promotionId, versionId, evaluationId);
            return call<EvaluationRecord>(http, getEvaluation, url, op, { parent, urlTemplate: undefined });
          })
        : send<EvaluationRecord>(getEvaluation, { promotionId, versionId, evaluationId }, op),

    replyToComment: (commentId, body, op) =>
      run("promotions.replyToComment", { commentId }, op, (parent) =>
        replyToComment(shared, commentId, body, op, parent),
      ),

    submitLatest: (promotionId, body = {}, op) =>
      run("promotions.submitLatest", { promotionId }, op, (parent) =>
        onLatest(client, promotionId, op, parent, (versionId, one) =>
          client.submit(promotionId, versionId, body, one),
        ),
      ),

    decisionOfLatest: (promotionId, op) =>
      run("promotions.decisionOfLatest", { promotionId }, op, (parent) =>
        onLatest(client, promotionId, op, parent, (versionId, one) =>
          client.decision(promotionId, versionId, one),
        ),
      ),
  };
  return client;
}
