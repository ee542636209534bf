/**
 * Upload initiation: `POST /v1/uploads` with the file's name, size and content type.
 */
import { checkResponse, unexpectedResponse } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import { type HttpClient, sendRoute } from "@promo-review/http";
import { initiateRoute, statusRoute } from "./routes.js";

/** The file service's answer to an initiation. */
export interface Initiated {
  uploadId: string;
  /** Where the chunks go, relative to the file service (`/v1/uploads/{id}`). */
  uploadUrl: string;
  /** The largest chunk a PUT may carry, as the service said. */
  maxChunkSize: number;
  correlationId: string;
}

/**
 * The spec's documented default chunk limit, 50 MB: the chunk size a resumed upload never exceeds
 * when nothing says better. A smaller real limit is learned from the service's 413 `max_chunk_size`.
 */
export const DOCUMENTED_MAX_CHUNK_SIZE = 52_428_800;

/**
 * Initiates an upload. The HTTP client retries it only where that cannot create a second upload
 * (a 429, or a request that never reached the service). A size over the service's limit is its
 * `PayloadTooLargeError`, even when the local format table let it through.
 */
export async function initiateUpload(
  http: HttpClient,
  body: { fileName: string; fileSize: number; contentType: string },
  options: {
    signal?: AbortSignal | undefined;
    correlationId?: string | undefined;
    parent?: ObservedOperation | undefined;
  } = {},
): Promise<Initiated> {
  const result = await sendRoute(http, initiateRoute, initiateRoute.path, {
    json: body,
    signal: options.signal,
    correlationId: options.correlationId,
    parent: options.parent,
  });
  // What the spec states of the initiation answer; any 2xx status is success (not shown).
  const context = {
    operation: initiateRoute.name,
    correlationId: result.correlationId,
    status: result.status,
    redact: http.redact,
  };
  const data = checkResponse(
    result.data,
    // maxChunkSize is given a default by the spec ("default 50 MB"), so an answer may leave it out.
    {
      uploadId: "uuid",
      uploadUrl: "nonEmptyString",
      maxChunkSize: { rule: "positiveInteger", optional: true },
    },
    context,
  );
  const uploadUrl = data["uploadUrl"] as string;
  // The bytes go where this names: a path that climbs (`..`) could land them on another resource.
  if (DOT_SEGMENT.test(uploadUrl)) {
    throw unexpectedResponse({
      ...context,
      field: "uploadUrl",
      problem: "must not hold . or .. path segments",
    });
  }
  return {
    uploadId: data["uploadId"] as string,
    uploadUrl,
    maxChunkSize: (data["maxChunkSize"] as number | undefined) ?? DOCUMENTED_MAX_CHUNK_SIZE,
    correlationId: result.correlationId,
  };
}

/** A `.` or `..` path segment, plainly or percent-encoded. */
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|\?|#|$)/i;

/**
 * The path of upload `uploadId` on the file service (its status, and its chunks' target): its route's
 * template filled. The id is a uuid, checked (`checkUploadId`), so it needs no encoding.
 */
export function uploadPath(uploadId: string): string {
  return statusRoute.path.replace("{uploadId}", uploadId);
}
