/**
 * Waiting out a 409 `upload_not_ready`. A referenced upload that is still processing makes creation
 * (and version creation) fail with 409, which means "not processed": the request is sent again once
 * the named uploads are ready. Readiness is learnt, in order of preference, from a waiter the caller
 * injects (the facade passes upload-chunker's), from the file service's upload status (which costs no
 * main-API budget), or, failing both, by backing off. The whole wait is bounded by a deadline and the
 * caller's signal, and the two end differently: an abort is an `AbortError`, a deadline an
 * `UploadNotReadyError` that says how long it waited.
 */
import { AbortError, ConflictError, errorFromTransport, UploadNotReadyError } from "@promo-review/errors";
import { DEFAULT_RETRY, type HttpClient, retryDelay, sleep } from "@promo-review/http";

/** Waits until the given uploads are ready; rejects when one cannot become ready. */
export type UploadWaiter = (uploadIds: string[], options: { signal?: AbortSignal }) => Promise<void>;

/** How a 409 `upload_not_ready` is waited out. */
export interface UploadWaitOptions {
  /** An injected waiter (preferred). */
  waitForUploads?: UploadWaiter | undefined;
  /** A file-service client to read upload status from when no waiter is injected. */
  files?: HttpClient | undefined;
  /** Longest total wait for uploads before giving up. */
  timeoutMs: number;
  /** Pause between upload-status reads, and first step of the fallback backoff. */
  intervalMs: number;
}

/**
 * Reads each upload's status from the file service until all are `completed`. A `failed` upload ends
 * the wait with a `ConflictError` naming it: it will never become ready, so retrying is pointless.
 */
export function fileServiceWaiter(files: HttpClient, intervalMs: number): UploadWaiter {
  return async (uploadIds, { signal }) => {
    const pending = new Set(uploadIds);
    while (pending.size > 0) {
      for (const uploadId of [...pending]) {
        const { data, correlationId } = await files.request<{ status?: string }>(
          `/v1/uploads/${encodeURIComponent(uploadId)}`,
          signal ? { signal } : {},
        );
        if (data?.status === "completed") pending.delete(uploadId);
        else if (data?.status === "failed") {
          throw new ConflictError({
            code: "UPLOAD_FAILED",
            message: `Upload ${uploadId} failed on the file service and will never be ready; upload the file again`,
            correlationId,
          });
        }
      }
      if (pending.size > 0) await sleep(intervalMs, signal);
    }
  };
}

/** Backs off (exponentially, with jitter) when nothing can tell when the uploads are ready. */
function backoffWaiter(intervalMs: number): (round: number, signal: AbortSignal) => Promise<void> {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: intervalMs, maxDelayMs: Math.max(intervalMs, 10_000) };
  return (round, signal) => sleep(retryDelay(undefined, round, policy), signal);
}

function tooLong(last: UploadNotReadyError, timeoutMs: number): UploadNotReadyError {
  return new UploadNotReadyError({
    code: last.code,
    status: last.status,
    message: `The referenced upload(s) were still not ready after waiting ${Math.round(timeoutMs / 1000)} s; nothing was created`,
    details: [...last.details],
    ...(last.correlationId ? { correlationId: last.correlationId } : {}),
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
  const fallback = backoffWaiter(options.intervalMs);
  const waiter =
    options.waitForUploads ?? (options.files && fileServiceWaiter(options.files, options.intervalMs));
  for (let round = 1; ; round++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof UploadNotReadyError)) throw error;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw tooLong(error, options.timeoutMs);
      const bounded = AbortSignal.any([...(signal ? [signal] : []), AbortSignal.timeout(remaining)]);
      try {
        if (waiter) await waiter(error.notReadyUploadIds, { signal: bounded });
        else await fallback(round, bounded);
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
      }
    }
  }
}
