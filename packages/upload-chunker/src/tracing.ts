/**
 * What an upload tells OpenTelemetry when the uploader's client was given a provider: the attributes
 * of its `uploads.upload` span, the events on it (each chunk attempt, a resume, each completion poll)
 * and the `promo_review.upload.throughput` histogram. Callers hold a span or a telemetry before they
 * call anything here: without a provider none of it runs.
 *
 * No file name anywhere (a user's file name may be personal data), no URL (the http package puts the
 * redacted `url.full` and the template on each request's CLIENT span), and no id in a metric.
 */
import {
  errorType,
  type OtelAttributes,
  type Telemetry,
  type TracedSpan,
} from "@promo-review/errors/telemetry";
import type { HttpClient } from "@promo-review/http";
import { formatOf } from "./formats.js";
import type { UploadStatus } from "./types.js";
import { UPLOAD_CHUNKER_VERSION } from "./version.js";

/** The spec's path of initiation: the CLIENT span's `url.template`. */
export const INITIATE_TEMPLATE = "/v1/uploads";

/**
 * The spec's path of a chunk PUT and a status read (`PUT /v1/uploads/{uploadId}` "(the uploadUrl)"):
 * the template of every request to the `uploadUrl`, whatever the service put in it (a token, say).
 */
export const UPLOAD_TEMPLATE = "/v1/uploads/{uploadId}";

/** The uploader's telemetry on its client's providers, or `undefined` without one. */
export function uploaderTelemetry(http: HttpClient): Telemetry | undefined {
  return http.telemetryFor?.({ name: "@promo-review/upload-chunker", version: UPLOAD_CHUNKER_VERSION });
}

/** The MIME type without its parameters (which could carry a name), lower-cased. */
function mimeOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * The upload's format as a metric may carry it: one of the service's formats (`pdf`, `image`, `video`,
 * `audio`, `document`), else `other`. A handful of values, never the raw content type.
 */
function formatBucket(contentType: string): string {
  return formatOf(contentType) ?? "other";
}

/** The `uploads.upload` span's attributes once the file is checked: its size and type. */
export function fileAttributes(size: number, contentType: string): OtelAttributes {
  return {
    "promo_review.upload.file_size": size,
    "promo_review.upload.content_type": mimeOf(contentType),
    "promo_review.upload.format": formatBucket(contentType),
  };
}

/** What happened to one chunk attempt. */
export type ChunkOutcome = "acknowledged" | "retried" | "resynced" | "shrunk" | "failed";

/** One chunk attempt: the bytes `[start, end)` and its number among the attempts at this range. */
export interface ChunkAttempt {
  readonly start: number;
  readonly end: number;
  readonly attempt: number;
}

/**
 * Adds `promo_review.upload.chunk` for one attempt: its range (`range_end` inclusive, as in
 * `Content-Range`), bytes, attempt number and outcome; with `error.type` (the error's code) when the
 * attempt failed. Each attempt has one event, but for an upload that stops during the wait after it
 * (an abort during a retry's backoff): a `failed` event then follows its `retried` or `acknowledged` one.
 */
export function chunkEvent(
  operation: TracedSpan,
  chunk: ChunkAttempt,
  outcome: ChunkOutcome,
  error?: unknown,
): void {
  operation.event("promo_review.upload.chunk", {
    "promo_review.upload.range_start": chunk.start,
    "promo_review.upload.range_end": chunk.end - 1,
    "promo_review.upload.bytes": chunk.end - chunk.start,
    "promo_review.upload.attempt": chunk.attempt,
    "promo_review.upload.outcome": outcome,
    // The error's code (ours all have one), never its message.
    "error.type": error === undefined ? undefined : errorType(error),
  });
}

/**
 * Adds `promo_review.upload.resumed`: the offset the service reported (where the chunks start), and
 * whether the upload was found in the resume store (else the caller named it).
 */
export function resumedEvent(operation: TracedSpan, offset: number, fromStore: boolean): void {
  operation.event("promo_review.upload.resumed", {
    "promo_review.upload.offset": offset,
    "promo_review.upload.from_resume_store": fromStore,
  });
}

/** Adds `promo_review.upload.poll`: one status read while waiting for `completed`, and the status seen. */
export function pollEvent(operation: TracedSpan, status: UploadStatus): void {
  operation.event("promo_review.upload.poll", { "promo_review.upload.status": status });
}

/** The throughput histogram: its unit, and bucket bounds from 64 KiB/s to 1 GiB/s (powers of 4). */
const THROUGHPUT = {
  unit: "By/s",
  advice: { explicitBucketBoundaries: [16, 18, 20, 22, 24, 26, 28, 30].map((power) => 2 ** power) },
};

/**
 * Records `promo_review.upload.throughput` once for an upload that completed: `bytes` sent in this run
 * over `ms` of phase 2. Its one attribute is the format bucket (an id would make a series per upload).
 * Nothing is recorded for a run that sent nothing (resumed at the end).
 */
export function recordThroughput(telemetry: Telemetry, bytes: number, ms: number, contentType: string): void {
  if (bytes <= 0) return;
  // A loopback chunk can take under the clock's resolution: count it as one microsecond.
  const seconds = Math.max(ms, 0.001) / 1000;
  telemetry.record("promo_review.upload.throughput", THROUGHPUT, bytes / seconds, {
    "promo_review.upload.format": formatBucket(contentType),
  });
}
