/**
 * The shapes link capture works with: its result, the saved state of a poll, and the progress events.
 */
import type { PromoReviewError } from "@promo-review/errors";
import type { ObservedOperation } from "@promo-review/errors/observe";
import type { WithResponse } from "@promo-review/http";

/** A promotion `fileFormat`, open to a value the service adds (screenshots and design frames are always `image`). */
/**
 * The format of a captured upload, as the service names it and passed on as given: `image` for
 * screenshots and design frames, and for a drive import any format the service supports. The spec's
 * list of promotion formats, and the check of a request against it, belong to promotions-core
 * (`FILE_FORMATS`); a capture's answer is not checked against it, so a format the list does not hold
 * yet still reaches the caller.
 */
export type FileFormat = string;

/** What a finished capture gives: the upload id and format to create the promotion with. */
export interface CaptureResult {
  /** The id to put in `uploadIds`: an import's `finalUploadId`, or a generic capture's `uploadId`. */
  uploadId: string;
  /** The `fileFormat` to create the promotion with. */
  fileFormat: FileFormat;
  /** The drive provider, for drive files (e.g. `google-drive`). */
  source?: string;
  /** The operation's correlation id (sent on the capture and on every poll). */
  correlationId: string;
  /** For an import: the upload id the 202 named, which is not the one to use. */
  importUploadId?: string;
  /** For an import: how many status polls it took. */
  attempts?: number;
}

/** The saved state of an import poll: plain JSON, to store and resume later (another process, say). */
export interface ImportPollState {
  /** The `statusUrl` exactly as the service returned it. */
  statusUrl: string;
  /** The upload id of the 202. */
  uploadId: string;
  /** The format the 202 announced, if any. */
  fileFormat?: FileFormat;
  /** The drive provider the 202 named, if any. */
  source?: string;
  /** Whether the link was a design-tool frame (whose format is always image). */
  design?: boolean;
  /** Polls made so far. */
  attempts: number;
  /** When polling gives up (epoch ms). */
  deadline: number;
  /** The operation's correlation id. */
  correlationId: string;
  /** The pause before the next poll (the backoff reached). */
  intervalMs: number;
  /** Set once finished: the result. */
  result?: CaptureResult;
}

/**
 * A capture's result with its non-enumerable `$response`: for a generic capture, the capture
 * request's; for an import, the poll that answered `completed`, with `attempts` counting every poll
 * made (the capture request not included) and `durationMs` that poll's own; for a poll resumed already
 * finished, `attempts: 0` and `cached: true` (no request was made).
 */
export type CaptureResponse = WithResponse<CaptureResult>;

/** Progress of a capture, for `onStatus`. */
export type CaptureEvent =
  | { type: "accepted"; uploadId: string; statusUrl?: string; correlationId: string }
  | { type: "status"; status: string; attempts: number; nextPollInMs: number }
  | { type: "throttled"; attempts: number; delayMs: number; error: PromoReviewError }
  | { type: "retrying"; attempts: number; delayMs: number; error: PromoReviewError }
  | { type: "completed"; result: CaptureResult };

/** Options of waiting for an import. */
export interface WaitOptions {
  signal?: AbortSignal;
  onStatus?: (event: CaptureEvent) => void;
  /**
   * The operation this one (`links.capture`, or `links.wait` for a poll's own `wait()`) runs inside,
   * as the client's `telemetry` observer started it. Default: none (an OpenTelemetry observer then
   * uses the caller's active span).
   */
  parent?: ObservedOperation | undefined;
}
