/**
 * Phase 3 of an upload: every byte is stored (and the store has forgotten the upload), so unless told
 * not to the upload waits for the service to report it `completed`.
 */
import { withResponse } from "@promo-review/http";
import type { Sent, UploadContext, UploadResponse } from "./types.js";
import { waitForUpload } from "./wait.js";

/** Phase 3: waits for `completed` (unless `waitForCompletion: false`), and answers. */
export async function finish(upload: UploadContext, sent: Sent): Promise<UploadResponse> {
  const { options, size: fileSize, fileName } = upload;
  let { status = "uploading", lastCorrelationId: correlationId } = sent;
  if (options.waitForCompletion !== false && status !== "completed") {
    const done = await waitForUpload(upload.meter.http, sent.uploadId, {
      signal: upload.signal,
      correlationId: upload.correlationId,
      pollIntervalMs: upload.pollIntervalMs,
      timeoutMs: options.waitTimeoutMs,
      parent: upload.parent,
      observer: upload.observer,
    });
    status = done.status;
    correlationId = done.correlationId;
  }
  const { uploadId, resumedFrom, retries } = sent;
  const result = { uploadId, status, fileSize, fileName, correlationId, resumedFrom, retries };
  // Every path here had an answer (initiation or a status read), so the meter has one.
  return withResponse(result, upload.meter.metadata()!);
}
