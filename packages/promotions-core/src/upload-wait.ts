/**
 * Waiting out a 409 `upload_not_ready`. A referenced upload that is still processing makes creation
 * (and version creation) fail with 409, which means "not processed": the request is sent again once
 * the named uploads are ready. Readiness is learnt from a waiter the caller injects (the facade passes
 * upload-chunker's, which reads the file service's upload status and so costs no main-API budget), or,
 * without one, by backing off. The whole wait is bounded by a deadline and the
 * caller's signal, and the two end differently: an abort is an `AbortError`, a deadline an
 * `UploadNotReadyError` that says how long it waited.
 */
import { AbortError, UploadNotReadyError } from "@promo-review/errors";
import { errorFromTransport, isUuid, unexpectedResponse } from "@promo-review/errors/internal";
import type { ObservedOperation, Observer } from "@promo-review/errors/observe";
import {
  DEFAULT_RETRY,
  deadlineSignal,
  type OperationCall,
  retryDelay,
  retrying,
  sleep,
} from "@promo-review/http";
import { explainAmbiguous } from "./ambiguous.js";
import type { PromotionsCore } from "./core.js";

/**
 * Waits until the given uploads are ready; rejects when one cannot become ready. `parent` is the
 * waiting operation, as the client's `telemetry` started it (the waiter's own operations run inside it).
 */
export type UploadWaiter = (
  uploadIds: string[],
  options: { signal?: AbortSignal; parent?: ObservedOperation | undefined },
) => Promise<void>;

/** How a 409 `upload_not_ready` is waited out. */
export interface UploadWaitOptions {
  /** An injected waiter (preferred). */
  waitForUploads?: UploadWaiter | undefined;
  /** Longest total wait for uploads before giving up. */
  timeoutMs: number;
  /** First step of the fallback backoff, when no waiter is injected. */
  intervalMs: number;
  /** The operation waited for, named by an `UNEXPECTED_RESPONSE` (default `promotions.create`). */
  operation?: string;
  /** The waiting operation, as the client's `telemetry` started it: each wait is published on it. */
  parent?: ObservedOperation | undefined;
  /** The client's observer, told of each wait. */
  telemetry?: Observer | undefined;
}

/**
 * The ids a 409 names go into the file service's paths: each must be a UUID, or the answer is an
 * `UNEXPECTED_RESPONSE` and nothing is sent.
 */
function checkNotReadyIds(error: UploadNotReadyError, operation: string): string[] {
  const ids = error.notReadyUploadIds;
  const bad = ids.findIndex((id) => !isUuid(id));
  if (bad >= 0) {
    throw unexpectedResponse({
      operation,
      field: `error.details.upload_not_ready.${bad}.uploadId`,
      problem: "must be a UUID string",
      correlationId: error.correlationId,
      status: error.status,
    });
  }
  return ids;
}

function tooLong(last: UploadNotReadyError, timeoutMs: number): UploadNotReadyError {
  return new UploadNotReadyError({
    code: last.code,
    status: last.status,
    message: `The referenced upload(s) were still not ready after waiting ${Math.round(timeoutMs / 1000)} s; nothing was created`,
    details: [...last.details],
    correlationId: last.correlationId,
    cause: last,
  });
}

/**
 * Sends `send` and, while it fails with 409 `upload_not_ready`, waits for the named uploads and sends
 * it again, until it succeeds, fails otherwise, the deadline passes or `signal` fires.
 */
export async function sendWaitingForUploads<T>(
  send: () => Promise<T>,
  options: UploadWaitOptions,
  signal: AbortSignal | undefined,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const waiter = options.waitForUploads;
  // Without a waiter, nothing can tell when the uploads are ready: back off, exponentially with jitter.
  const { intervalMs } = options;
  const policy = { ...DEFAULT_RETRY, baseDelayMs: intervalMs, maxDelayMs: Math.max(intervalMs, 10_000) };
  return retrying(send, {
    shouldRetry: (error) => error instanceof UploadNotReadyError,
    // The backoff's own step: a 409 names no wait of its own that could mean "ready by then".
    delayMs: (_error, round) => retryDelay(undefined, round, policy),
    async wait(delayMs, raw, attempt) {
      const error = raw as UploadNotReadyError;
      const ids = checkNotReadyIds(error, options.operation ?? "promotions.create");
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw tooLong(error, options.timeoutMs);
      // Which uploads were not ready, after which attempt, and (without a waiter) the backoff slept.
      options.telemetry?.uploadWaited?.({
        parent: options.parent,
        uploadIds: ids,
        attempt,
        delayMs: waiter ? undefined : delayMs,
      });
      const limit = deadlineSignal(remaining, signal);
      const bounded = limit.signal;
      try {
        if (waiter) await waiter(ids, { signal: bounded, parent: options.parent });
        else await sleep(delayMs, bounded);
      } catch (waitError) {
        // An injected waiter may reject with anything on abort; the caller always gets an AbortError.
        if (signal?.aborted) {
          throw waitError instanceof AbortError
            ? waitError
            : errorFromTransport(signal.reason, { aborted: true, sent: false });
        }
        if (bounded.aborted) throw tooLong(error, options.timeoutMs);
        // A waiter's own failure (an upload that failed, say) ends the operation with its reason.
        throw waitError;
      } finally {
        limit.clear();
      }
    },
  });
}

/**
 * The `around` of a creation (of a promotion, or a version: operation `name`) on `core`: a 409
 * `upload_not_ready` waited out as the core says (each wait published on the operation), never resent
 * blindly; a failure that may have reached the service says that `what` may exist.
 */
export function waitingForUploads(
  core: PromotionsCore,
  name: string,
  what: string,
  signal: AbortSignal | undefined,
): NonNullable<OperationCall["around"]> {
  return (send, { operation, correlationId }) =>
    sendWaitingForUploads(
      send,
      { ...core.uploadWait, operation: name, telemetry: core.http.telemetry, parent: operation },
      signal,
    ).catch((error: unknown) => {
      throw explainAmbiguous(error, what, correlationId);
    });
}
