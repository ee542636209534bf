/**
 * Phase 1 of an upload: continue the upload the caller named or the store remembers, from the byte
 * the service says it holds (the service is the source of truth), or initiate a new one.
 */
import { NotFoundError, PromoReviewError } from "@promo-review/errors";
import { claimBeyond, withUploadState } from "./failure.js";
import { initiateUpload, uploadPath } from "./initiate.js";
import { statusRoute } from "./routes.js";
import type { Placement, ResumeRecord, UploadContext, UploadState } from "./types.js";
import { getUploadState } from "./wait.js";

/** The chunk size a resumed upload starts from when nothing says better. */
export const RESUME_CHUNK_SIZE = 8 * 1024 * 1024;

/**
 * Phase 1: continues upload `resumeId` when given, else the unfinished upload the store remembers for
 * this file (when the service still has it), else initiates one; then emits `initiated`. Once the
 * upload has an id, an error names it and the bytes the service confirmed (see `withUploadState`).
 */
export async function resumeOrInitiate(
  upload: UploadContext,
  resumeId: string | undefined,
): Promise<Placement> {
  const remembered = await upload.store.get(upload.fingerprint);
  const state =
    resumeId === undefined ? await rememberedState(upload, remembered) : await namedState(upload, resumeId);
  const placed = state ? await resume(upload, state, remembered) : await initiate(upload);
  const { uploadId, maxChunkSize, resumedFrom } = placed;
  const { observer, parent } = upload;
  if (parent) {
    observer?.operationDetailed?.(parent, { uploadId });
    if (state) observer?.uploadResumed?.({ parent, offset: resumedFrom, fromStore: resumeId === undefined });
  }
  upload.emit("initiated", { uploadId, maxChunkSize, resumedFrom });
  return placed;
}

/** The status of the upload the caller named: it is this upload's from now on, whatever the read gives. */
function namedState(upload: UploadContext, uploadId: string): Promise<UploadState> {
  return named(upload, uploadId, 0, () => getUploadState(upload.meter.http, uploadId, upload));
}

/** Runs `work`, its failure naming upload `uploadId` and the `acknowledged` bytes. */
async function named<T>(
  upload: UploadContext,
  uploadId: string,
  acknowledged: number,
  work: () => T | Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw withUploadState(error, { uploadId, bytesAcknowledged: acknowledged, fileSize: upload.size });
  }
}

/**
 * The status of the upload the store remembers for this file, when the service still has it unfailed
 * and of this size; otherwise the record is forgotten and `undefined` says to start again.
 */
async function rememberedState(
  upload: UploadContext,
  remembered: ResumeRecord | undefined,
): Promise<UploadState | undefined> {
  if (!remembered || remembered.fileSize !== upload.size) return undefined;
  const state = await getUploadState(upload.meter.http, remembered.uploadId, upload).catch(
    (error: unknown) => {
      // An upload the service no longer knows is simply started again.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    },
  );
  if (state && state.status !== "failed" && (state.fileSize ?? upload.size) === upload.size) return state;
  await upload.store.delete(upload.fingerprint);
  return undefined;
}

/** Continues the upload whose status is `state` from the byte the service holds, once it fits this file. */
async function resume(
  upload: UploadContext,
  state: UploadState,
  remembered: ResumeRecord | undefined,
): Promise<Placement> {
  const { uploadId } = state;
  const resumedFrom = await named(upload, uploadId, 0, () => startOf(upload, state));
  const known = remembered?.uploadId === uploadId;
  const maxChunkSize =
    (known ? remembered.maxChunkSize : undefined) ?? upload.options.chunkSize ?? RESUME_CHUNK_SIZE;
  if (!known) {
    const record = { uploadId, maxChunkSize, fileSize: upload.size };
    await named(upload, uploadId, resumedFrom, () => upload.store.set(upload.fingerprint, record));
  }
  const uploadUrl = uploadPath(uploadId);
  const { status, correlationId: lastCorrelationId } = state;
  return { uploadId, uploadUrl, maxChunkSize, resumedFrom, status, lastCorrelationId };
}

/** The byte to continue from, once the status proves the upload can go on with this file. */
function startOf(upload: UploadContext, state: UploadState): number {
  const { uploadId } = state;
  const { size } = upload;
  if (state.fileSize !== undefined && state.fileSize !== size) {
    throw new PromoReviewError({
      code: "VALIDATION_ERROR",
      message: `Upload ${uploadId} expects ${state.fileSize} bytes but the source holds ${size}; resume it with the same file`,
      correlationId: state.correlationId,
    });
  }
  if (state.status === "failed") {
    throw new PromoReviewError({
      code: "UPLOAD_FAILED",
      message: `The file service marked upload ${uploadId} failed; upload the file again`,
      correlationId: state.correlationId,
    });
  }
  const received = state.receivedBytes ?? 0;
  if (received > size)
    throw claimBeyond(statusRoute.name, "receivedBytes", received, size, state.correlationId);
  return state.status === "completed" ? size : received;
}

/** Initiates a new upload and remembers it under the file's fingerprint. */
async function initiate(upload: UploadContext): Promise<Placement> {
  const { fileName, size: fileSize, contentType } = upload;
  const initiated = await initiateUpload(upload.meter.http, { fileName, fileSize, contentType }, upload);
  const { uploadId, uploadUrl, maxChunkSize, correlationId: lastCorrelationId } = initiated;
  const record = { uploadId, maxChunkSize, fileSize };
  await named(upload, uploadId, 0, () => upload.store.set(upload.fingerprint, record));
  return {
    uploadId,
    uploadUrl,
    maxChunkSize,
    resumedFrom: 0,
    status: undefined,
    lastCorrelationId,
  };
}
