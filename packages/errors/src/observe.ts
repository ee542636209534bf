/**
 * The observation seam: what the SDK's packages publish as it happens (an operation, a request and
 * its attempts, a retry, a wait for the rate budget), as plain data, to an {@link Observer} a user
 * passes as a client's `telemetry` option. The logger, the hooks and the OpenTelemetry adapter
 * (`@promo-review/opentelemetry`) all consume it; the packages know none of their names.
 *
 * Every callback is optional and every caller writes `observer?.operationStarted?.(...)`: a client
 * given no observer runs no observation code beyond those checks, so a bundle that imports no
 * adapter carries only this seam's few bytes.
 * @packageDocumentation
 */
import type { Redactor } from "./redact.js";

declare const operationMark: unique symbol;

/**
 * An operation under way, as the observer that started it returned it. Opaque to the packages:
 * they only hand it on, as the `parent` of what happens inside it (its requests, its budget waits,
 * the operations it runs), so that an observer nests them without any context API in the packages.
 */
export interface ObservedOperation {
  readonly [operationMark]: true;
}

/** The package that publishes an event: its npm name and version. */
export interface ObservationSource {
  readonly name: string;
  readonly version: string;
}

/** What every event that starts something says: who publishes it and how that client redacts. */
export interface ObservationOrigin {
  source: ObservationSource;
  /**
   * The publishing client's redactor (its credentials and every signature-like value): an observer
   * passes every string it keeps or shows through it.
   */
  redact: Redactor;
}

/** A fact about an operation: an id, a count, a flag. `undefined` means "not known" and is left out. */
export type ObservedValue = string | number | boolean | readonly string[] | undefined;

/** An operation starts: `promotions.create`, `uploads.upload`, ... */
export interface OperationStart extends ObservationOrigin {
  /** `<client>.<method>`, as the user calls it: `promotions.create`. */
  name: string;
  /**
   * What the operation acts on, under camelCase keys the observer names in its own vocabulary
   * (`promotionId`, `versionId`; a dot groups: `upload.format`).
   */
  details?: Record<string, ObservedValue> | undefined;
  /** The operation this one runs inside (a facade's flow), when it has one. */
  parent?: ObservedOperation | undefined;
}

/** An operation ended: with its result's correlation id, or with the error it threw. */
export interface OperationEnd {
  /** The correlation id of the answer (or of the error) the operation ended with, when it has one. */
  correlationId?: string | undefined;
  /** What the operation threw; absent when it succeeded. */
  error?: unknown;
  /**
   * What the operation learnt about what it acted on (the ids its result names, whether a cache
   * served it), under the same keys as {@link OperationStart.details}.
   */
  details?: Record<string, ObservedValue> | undefined;
}

/** Why a request waited for the rate budget before it left, and how long. */
export interface BudgetWaited {
  ms: number;
  /** `window`: the rule's window was full; `paused`: a 429's `Retry-After` paused the key. */
  reason: "window" | "paused";
}

/** A request starts (before its first attempt): one call of `HttpClient.request`. */
export interface RequestStart extends ObservationOrigin {
  /** Upper-case: `GET`, `POST`, ... */
  method: string;
  /** The path as the caller gave it (relative, or a service-given URL such as a `statusUrl`). */
  path: string;
  /** The resolved URL, through the client's redactor. */
  url: string;
  /** The path's template as the spec writes it (`/v1/promotions/{promotionId}`), when the caller knows it. */
  urlTemplate?: string | undefined;
  /** The `X-Correlation-ID` every attempt sends. */
  correlationId: string;
  /** The operation the request belongs to. */
  parent?: ObservedOperation | undefined;
}

/** A request ended: answered, or failed for good. */
export interface RequestEnd {
  status?: number | undefined;
  error?: PublishedError | undefined;
  attempts: number;
}

/**
 * An error as the packages publish it: the SDK's typed errors carry these fields (`PromoReviewError`),
 * declared by shape so that the seam imports none of the error classes.
 */
export interface PublishedError {
  readonly code: string;
  readonly status?: number | undefined;
  /** The wait the service asked for (`Retry-After`), in ms. */
  readonly retryAfterMs?: number | undefined;
}

/** What an observer follows of one request: its attempts, then its end. */
export interface RequestObserver {
  /** Attempt `attempt` (1 for the first) begins; what observes it. */
  attemptStarted?(attempt: number): AttemptObserver | undefined;
  /** The request is over: answered, or failed with no retry to follow. */
  ended?(end: RequestEnd): void;
}

/** One request on the wire: the attempt's first, or a redirect hop. */
export interface SentRequest {
  /** Its URL (a hop's is where the redirect led), through the client's redactor. */
  url: string;
  /** Why and how long it waited for the rate budget before leaving, when it did. */
  waited?: BudgetWaited | undefined;
}

/** What an observer follows of one attempt: each request it puts on the wire, then its outcome. */
export interface AttemptObserver {
  /**
   * A request of this attempt leaves now (after the budget's wait): the first, then each redirect hop.
   * May return headers to add to it (a trace context); the pipeline sends them only to the origins it
   * trusts with its credentials.
   */
  sent?(request: SentRequest): Record<string, string> | undefined;
  /** The request on the wire was answered with `status`. */
  answered?(status: number): void;
  /** That answer was a redirect, followed: the next `sent` is its hop. */
  redirected?(): void;
  /** The attempt has its outcome: `status` when the service answered, `error` when it failed. */
  ended?(outcome: { status?: number | undefined; error?: PublishedError | undefined }): void;
  /** The failed attempt is retried after `delayMs`; `attempt` is the one that failed. */
  retrying?(retry: { error: PublishedError; delayMs: number; attempt: number }): void;
}

/** Why an acquisition of the rate budget waited; `none` when it did not. */
export type BudgetWaitReason = "window" | "paused" | "none";

/** An acquisition of the rate budget ended: every one, whether it waited or not. */
export interface BudgetAcquisition extends ObservationOrigin {
  /** The rule that held the request (of those it is under, the tightest): `shared`, `links`. */
  rule: string;
  reason: BudgetWaitReason;
  /** From the call to the admission (or the failure), in ms. */
  ms: number;
  /** Why it failed (aborted, refused, closed); absent when admitted. */
  error?: unknown;
}

/** An acquisition starts to wait: its rule's window is full, or a 429 paused the key. */
export interface BudgetWaitStart extends ObservationOrigin {
  rule: string;
  reason: Exclude<BudgetWaitReason, "none">;
  /** The operation waiting (what the pipeline passed as the request's `parent`). */
  parent?: ObservedOperation | undefined;
  /** The wait is a resend's after a 429 whose `Retry-After` asked for this many ms. */
  retryAfterMs?: number | undefined;
}

/** What an observer follows of one wait for the budget. */
export interface BudgetWaitObserver {
  /** The wait ended after `ms`: admitted, or with `error`. A pause that came during it makes `reason` `paused`. */
  ended?(end: { ms: number; reason: Exclude<BudgetWaitReason, "none">; error?: unknown }): void;
}

/** How a webhook delivery's verification ended. */
export interface WebhookOutcome extends ObservationOrigin {
  /** The delivery's operation (`webhooks.verify`), as the observer started it. */
  parent?: ObservedOperation | undefined;
  /**
   * `accepted`; `duplicate`, a replay of an accepted id (the sender only retried: no error);
   * `refused`, with its `reason`; `failed`, when no verdict could be reached (the replay store failed).
   */
  outcome: "accepted" | "duplicate" | "refused" | "failed";
  /** The refusal's reason (`signature`, `timestamp`, ...), for `refused`. */
  reason?: string | undefined;
  /** The `webhook-id`, when the delivery carried one. */
  webhookId?: string | undefined;
  /** The event's type, when the body was parsed. */
  eventType?: string | undefined;
}

/** What happened to one attempt at an upload's chunk. */
export type ChunkOutcome = "acknowledged" | "retried" | "resynced" | "shrunk" | "failed";

/**
 * One attempt at an upload's chunk, with its outcome. Each attempt has one, but for an upload that
 * stops during the wait after it (an abort during a retry's backoff): a `failed` one then follows.
 */
export interface UploadChunk {
  /** The upload's operation (`uploads.upload`). */
  parent?: ObservedOperation | undefined;
  /** The bytes `[start, end)`. */
  start: number;
  end: number;
  /** The attempt's number among the attempts at this range (1 for the first). */
  attempt: number;
  outcome: ChunkOutcome;
  /** Why the attempt did not simply succeed (absent for `acknowledged`): usually a typed error. */
  error?: unknown;
}

/** An upload found its place at the service: resumed at `offset` rather than initiated. */
export interface UploadResumed {
  parent?: ObservedOperation | undefined;
  /** The byte the service holds, where the chunks start. */
  offset: number;
  /** Found in the resume store (else the caller named the upload). */
  fromStore: boolean;
}

/** A completed upload's transfer: `bytes` sent in this run over `ms` of its chunk phase. */
export interface UploadTransferred extends ObservationOrigin {
  bytes: number;
  ms: number;
  /** The service's format (`pdf`, `image`, `video`, `audio`, `document`), else `other`: never an id. */
  format: string;
}

/** One status read of a link import: its number, and the status it saw or the error it failed with. */
export interface LinkPolled {
  /** The operation waiting (`links.capture` or `links.wait`). */
  parent?: ObservedOperation | undefined;
  /** 1 for the first read of this import. */
  attempt: number;
  /** The status the service gave, as sent (`unknown` when it gave none); absent when the read failed. */
  status?: string | undefined;
  /** Why the read failed (usually a typed error); absent when it was answered. */
  error?: unknown;
}

/** One read of an evaluation while an operation waits for its result (a facade flow's `evaluateAndWait`). */
export interface EvaluationPolled {
  /** The operation waiting. */
  parent?: ObservedOperation | undefined;
  /** 1 for the first read of this evaluation. */
  attempt: number;
  /** The evaluation's status as the service sent it (`processing` until it ends). */
  status: string;
}

/** An operation waits for uploads the service named not ready (a 409 `upload_not_ready`) before resending. */
export interface UploadWait {
  /** The operation waiting (`promotions.create`, ...). */
  parent?: ObservedOperation | undefined;
  /** The uploads named not ready. */
  uploadIds: readonly string[];
  /** The attempt that was answered 409 (1 for the first). */
  attempt: number;
  /** The backoff slept, when no waiter tells when the uploads are ready. */
  delayMs?: number | undefined;
}

/**
 * What a client's `telemetry` option takes: callbacks for what happens, every one optional. Called
 * synchronously; an observer must not throw (the adapters of this SDK never do).
 */
export interface Observer {
  /** An operation starts. Returns the handle its children take as `parent` and its end takes. */
  operationStarted?(start: OperationStart): ObservedOperation | undefined;
  /** The operation `operationStarted` returned `operation` for ended. */
  operationEnded?(operation: ObservedOperation, end: OperationEnd): void;
  /** A request starts; what follows its attempts. */
  requestStarted?(start: RequestStart): RequestObserver | undefined;
  /** An acquisition of the rate budget ended (the hot path: called for every request). */
  budgetAcquired?(acquisition: BudgetAcquisition): void;
  /** An acquisition starts waiting for the rate budget; what follows the wait. */
  budgetWaitStarted?(wait: BudgetWaitStart): BudgetWaitObserver | undefined;
  /** A request is sent again after a 429 (its `Retry-After` of `retryAfterMs`) without waiting. */
  budgetResent?(resend: { parent?: ObservedOperation | undefined; retryAfterMs: number }): void;
  /** A 429 paused the budget; `rule` is the request's, when the budget was told which request. */
  budgetPaused?(pause: ObservationOrigin & { rule?: string | undefined }): void;
  /** A webhook delivery was verified (before its operation ends): how it went. */
  webhookVerified?(outcome: WebhookOutcome): void;
  /**
   * More of an operation's details, known only once it is under way (an id it was given or checked,
   * a size it read), under the same keys as `OperationStart.details`.
   */
  operationDetailed?(operation: ObservedOperation, details: Record<string, ObservedValue>): void;
  /** An attempt at an upload's chunk has its outcome. */
  uploadChunk?(chunk: UploadChunk): void;
  /** An upload resumed where the service holds its bytes. */
  uploadResumed?(resume: UploadResumed): void;
  /** A status read while waiting for an upload's `completed` (`parent`'s), and the status it saw. */
  uploadPolled?(poll: { parent?: ObservedOperation | undefined; status: string }): void;
  /** An upload completed after sending bytes in this run (none is told for a run that sent nothing). */
  uploadTransferred?(transfer: UploadTransferred): void;
  /** A link import's status was read (or the read failed). */
  linkPolled?(poll: LinkPolled): void;
  /** An operation starts waiting for uploads that were not ready. */
  uploadWaited?(wait: UploadWait): void;
  /** An evaluation was read while an operation waits for its result. */
  evaluationPolled?(poll: EvaluationPolled): void;
}

/**
 * Runs `work` as operation `start.name` on `observer` (when it follows operations): the handle goes
 * to `work` as the parent of what it does, and the operation ends when `work` settles, with the
 * result's or the error's `correlationId` and, when it succeeded, the details `learnt` reads from
 * the result (the ids it names). Without an observer it just runs `work`, and `learnt` is never called.
 */
export async function observed<T>(
  observer: Observer | undefined,
  start: OperationStart,
  work: (operation: ObservedOperation | undefined) => Promise<T>,
  learnt?: (result: T) => Record<string, ObservedValue> | undefined,
): Promise<T> {
  const operation = observer?.operationStarted?.(start);
  if (!operation) return work(undefined);
  const ended = (outcome: unknown, error?: unknown, details?: Record<string, ObservedValue>) => {
    const correlationId = (outcome as { correlationId?: unknown } | undefined)?.correlationId;
    observer?.operationEnded?.(operation, {
      ...(typeof correlationId === "string" ? { correlationId } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(details ? { details } : {}),
    });
  };
  try {
    const result = await work(operation);
    ended(result, undefined, learnt?.(result));
    return result;
  } catch (error) {
    ended(error, error);
    throw error;
  }
}
