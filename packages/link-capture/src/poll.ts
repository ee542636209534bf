/**
 * Polling an import's `statusUrl`. The URL is used exactly as returned: resolved against the base URL
 * when relative, with its query (a signature, percent-encoded) sent byte for byte, because the service
 * needs it to find the import. Polls come every few seconds, slowing down while nothing changes; a 429
 * waits its `Retry-After` (polls spend the shared main-API budget); a 5xx or a broken connection is
 * retried (a poll changes nothing). An overall deadline and the caller's signal end it, with distinct
 * errors, and the state can be saved (`toJSON`) and resumed elsewhere.
 */
import { PromoReviewError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { isUuid, unexpectedResponse } from "@promo-review/errors/internal";
import { type ObservedOperation, type Observer, observed } from "@promo-review/errors/observe";
import {
  DEFAULT_RETRY,
  type HttpClient,
  type HttpResult,
  isSafeToRetry,
  notRequested,
  poll,
  responseMetadata,
  retryDelay,
  sendRoute,
  withResponse,
} from "@promo-review/http";
import { explainCaptureError } from "./explain.js";
import { linkOrigin } from "./observation.js";
import { pollRoute, waitOperation } from "./routes.js";
import type { CaptureResponse, CaptureResult, ImportPollState, WaitOptions } from "./types.js";

/** How polls are paced. */
export interface PollPacing {
  /** Longest pause between polls while the import is processing. */
  maxIntervalMs: number;
  /** Each unchanged poll multiplies the pause by this. */
  factor: number;
  /** Per-request timeout of a poll. */
  requestTimeoutMs: number;
}

/** Import statuses that mean it will never complete (the spec shows only `completed`; see docs/gaps.md). */
const FAILED = new Set(["failed", "error", "cancelled", "canceled", "expired"]);

type StatusBody = {
  status?: unknown;
  finalUploadId?: unknown;
  fileFormat?: unknown;
  [field: string]: unknown;
};

function unexpected(field: string, problem: string, correlationId: string): PromoReviewError {
  return unexpectedResponse({ operation: pollRoute.name, field, problem, correlationId });
}

/** One import being polled. Made by `links.startImport()` or `links.resumePoll()`. */
export class ImportPoll {
  readonly #http: HttpClient;
  readonly #pacing: PollPacing;
  readonly #state: ImportPollState;
  /** A `wait()` is polling: plain state, never a promise another caller awaits (see `#watch`). */
  #running = false;
  /** The client's `telemetry` observer, told of each wait and poll. */
  readonly #observer: Observer | undefined;
  /** The operation of the capture that waits on this poll (its polls are that operation's). */
  #operation: ObservedOperation | undefined;

  /** @internal Use `links.startImport()` or `links.resumePoll()`. */
  constructor(
    http: HttpClient,
    state: ImportPollState,
    pacing: PollPacing,
    observation: { observer?: Observer | undefined; parent?: ObservedOperation | undefined } = {},
  ) {
    this.#http = http;
    this.#state = { ...state };
    this.#pacing = pacing;
    this.#observer = observation.observer;
    this.#operation = observation.parent;
  }

  /** Whether the import has finished and {@link result} is set. */
  get done(): boolean {
    return this.#state.result !== undefined;
  }

  /** The result once finished. */
  get result(): CaptureResult | undefined {
    return this.#state.result;
  }

  /** The state to save: plain JSON; pass it to `links.resumePoll()` to carry on. */
  toJSON(): ImportPollState {
    return structuredClone(this.#state);
  }

  /**
   * Polls until the import completes and returns the upload id and format to create the promotion
   * with. Rejects with a `TimeoutError` at the deadline (the import may still complete: save the state
   * and resume), an `AbortError` when `signal` fires, or the service's error. The result's `$response`
   * is the completing poll's, `attempts` counting every poll (see `CaptureResponse`). It is
   * operation `links.wait` (each poll a `promo_review.link.poll` event), unless
   * `links.capture` waits on it within its own operation.
   */
  wait(options: WaitOptions = {}): Promise<CaptureResponse> {
    const done = this.#state.result;
    if (done) {
      // A state restored finished (from `toJSON`) lost its `$response`: no request was made for it here.
      if (!("$response" in done)) withResponse(done, notRequested(this.#state.correlationId));
      return Promise.resolve(done as CaptureResponse);
    }
    if (this.#running) return this.#watch(options);
    this.#running = true;
    const operation = this.#operation;
    // Only the capture's own wait runs within its operation; any later wait is an operation of its own.
    this.#operation = undefined;
    const polling = operation
      ? this.#loop(options, operation)
      : observed(
          this.#observer,
          { name: waitOperation.name, ...linkOrigin(this.#http), parent: options.parent },
          (op) => this.#loop(options, op),
        );
    return polling.finally(() => {
      this.#running = false;
    });
  }

  /**
   * A second `wait()` while one polls: it takes that one's result, watching for it on timers of its
   * own within its own signal, and polls itself if that one stops without it (aborted by its own
   * signal, say). Never awaiting the other caller's promise: in Cloudflare Workers a request may wait
   * only on its own I/O and timers, and one caller's abort must not end another's wait.
   */
  async #watch(options: WaitOptions): Promise<CaptureResponse> {
    await poll(async () => (this.#running ? { done: false } : { done: true, value: undefined }), {
      backoff: { initialMs: 5, maxMs: 100 },
      signal: options.signal,
      deadlineAt: this.#state.deadline,
      timeoutError: () => this.#timeout(),
    });
    return this.wait(options);
  }

  /** Polls until done; each poll is told to the observer as part of `op`, its request under `op`. */
  #loop({ signal, onStatus }: WaitOptions, op: ObservedOperation | undefined): Promise<CaptureResponse> {
    const polled = (attempt: number, outcome: { status?: string; error?: unknown }) => {
      if (op) this.#observer?.linkPolled?.({ parent: op, attempt, ...outcome });
    };
    const state = this.#state;
    let failures = 0;
    let status = "unknown";
    return poll<CaptureResponse>(
      async () => {
        const attempt = ++state.attempts;
        let answer: HttpResult<StatusBody>;
        try {
          // No url.template: `statusUrl` is the service's to shape (the spec writes only `{statusUrl}`),
          // so the CLIENT span is named by its method alone.
          answer = await sendRoute<StatusBody>(this.#http, pollRoute, state.statusUrl, {
            urlTemplate: undefined,
            correlationId: state.correlationId,
            retry: false,
            timeoutMs: this.#pacing.requestTimeoutMs,
            signal,
            parent: op,
          });
        } catch (error) {
          polled(attempt, { error });
          throw error;
        }
        failures = 0;
        const body = answer.data;
        status = typeof body?.status === "string" ? body.status : "unknown";
        polled(attempt, { status });
        if (status === "completed") return { done: true, value: this.#finish(body ?? {}, answer, onStatus) };
        if (FAILED.has(status)) {
          throw new PromoReviewError({
            code: "IMPORT_FAILED",
            message: `The link import ended with status "${status}"; capture the link again`,
            correlationId: state.correlationId,
          });
        }
        return { done: false };
      },
      {
        backoff: {
          initialMs: state.intervalMs,
          maxMs: this.#pacing.maxIntervalMs,
          factor: this.#pacing.factor,
        },
        deadlineAt: state.deadline,
        timeoutError: () => this.#timeout(),
        signal,
        onError: (error, intervalMs) => {
          // IMPORT_FAILED and UNEXPECTED_RESPONSE thrown above are not safe to retry: they end the wait.
          // A 429 waits its Retry-After (the poll helper refuses one over the one-hour bound).
          if (error instanceof RateLimitError) return error.retryAfterMs ?? intervalMs;
          const typed = error as PromoReviewError;
          if (!(error instanceof PromoReviewError) || !isSafeToRetry(typed, true, DEFAULT_RETRY)) {
            throw explainCaptureError(error, state.statusUrl);
          }
          failures++;
          return Math.max(retryDelay(typed, failures, DEFAULT_RETRY), intervalMs);
        },
        onPause: (pause) => {
          const { attempts } = state;
          if (pause.reason === "pending") {
            onStatus?.({ type: "status", status, attempts, nextPollInMs: pause.delayMs });
            state.intervalMs = pause.intervalMs;
          } else {
            const error = pause.error as PromoReviewError;
            const type = error instanceof RateLimitError ? "throttled" : "retrying";
            onStatus?.({ type, attempts, delayMs: pause.delayMs, error });
          }
        },
      },
    );
  }

  #finish(
    body: StatusBody,
    answer: HttpResult<StatusBody>,
    onStatus: WaitOptions["onStatus"],
  ): CaptureResponse {
    const metadata = { ...responseMetadata(answer, this.#http.redact), attempts: this.#state.attempts };
    const result = withResponse(this.#completed(body), metadata);
    this.#state.result = result;
    onStatus?.({ type: "completed", result });
    return result;
  }

  #completed(body: StatusBody): CaptureResult {
    const state = this.#state;
    // The final upload id goes into promotions and file-service paths: a uuid, as the spec states.
    if (!isUuid(body.finalUploadId)) {
      const problem =
        body.finalUploadId === undefined ? "is required on completion" : "must be a UUID string";
      throw unexpected("finalUploadId", problem, state.correlationId);
    }
    const fileFormat =
      (typeof body.fileFormat === "string" ? body.fileFormat : undefined) ??
      state.fileFormat ??
      (state.design ? "image" : undefined);
    if (fileFormat === undefined) {
      throw unexpected(
        "fileFormat",
        "is required: neither the capture nor the poll named the file's format",
        state.correlationId,
      );
    }
    return {
      uploadId: body.finalUploadId,
      fileFormat,
      // A result the caller sees: no `source` key at all when the service named none (inspect, `in`).
      ...(state.source ? { source: state.source } : {}),
      correlationId: state.correlationId,
      importUploadId: state.uploadId,
      attempts: state.attempts,
    };
  }

  #timeout(): TimeoutError {
    return new TimeoutError({
      code: "TIMEOUT",
      message:
        `The link import had not completed by its deadline (${this.#state.attempts} polls); it may still ` +
        "complete: save poll.toJSON() and resume it with links.resumePoll(state, { pollTimeoutMs })",
      correlationId: this.#state.correlationId,
      mayHaveReachedServer: true,
    });
  }
}
