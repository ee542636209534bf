/**
 * The file service's operations, each declared once: its route (`routes.ts`, what the uploader sends
 * by) with valibot schemas (see `OperationDeclaration` of `@promo-review/http`): upload initiation, the chunk PUT and the upload's
 * status. A description of the service (OpenAPI) is generated from them. The schemas state what the
 * client checks (`initiate.ts`, `put-chunk.ts`, `wait.ts`): what the spec states is required, the
 * rest open, unknown fields kept. The file service has no rate budget (docs/gaps.md row 23).
 */
import type { OperationDeclaration } from "@promo-review/http";
import * as v from "valibot";
import { initiateRoute, putChunkRoute, statusRoute } from "./routes.js";
import { UPLOAD_STATUSES } from "./upload-statuses.js";

const uuid = v.pipe(v.string(), v.uuid());
const nonEmpty = v.pipe(v.string(), v.minLength(1));
const byteCount = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const positive = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

/** The initiation request: the file's name (with its extension), total size in bytes and MIME type. */
export const initiateRequestSchema = v.looseObject({
  fileName: nonEmpty,
  fileSize: byteCount,
  contentType: nonEmpty,
});

/**
 * The initiation answer: the upload's id, where its chunks go (relative, without `.` or `..`
 * segments) and the largest chunk (the spec's default, 50 MB, when absent).
 */
export const initiatedAnswerSchema = v.looseObject({
  uploadId: uuid,
  uploadUrl: v.pipe(
    nonEmpty,
    v.check((url) => !/(^|\/)(\.|%2e){1,2}(\/|\?|#|$)/i.test(url), "must not hold . or .. path segments"),
  ),
  maxChunkSize: v.optional(positive),
});

/**
 * A stored chunk's answer (not shown in the spec, docs/gaps.md row 12): the next byte offset expected
 * and the upload's status when present; any other body is ignored.
 */
export const chunkAnswerSchema = v.looseObject({
  receivedBytes: v.optional(byteCount),
  status: v.optional(v.string()),
});

/** The upload object: its status (the spec's closed enum), and the rest when present. */
export const uploadStatusAnswerSchema = v.looseObject({
  status: v.picklist(UPLOAD_STATUSES),
  uploadId: v.optional(uuid),
  fileName: v.optional(v.string()),
  fileSize: v.optional(byteCount),
  createdAt: v.optional(v.string()),
  receivedBytes: v.optional(byteCount),
});

/** Starts an upload (201 in the simulator; not shown in the spec, docs/gaps.md row 16). */
export const uploadInitiation = {
  ...initiateRoute,
  budget: "none",
  request: initiateRequestSchema,
  response: initiatedAnswerSchema,
} as const satisfies OperationDeclaration;

/**
 * Sends one chunk of bytes to the `uploadUrl` with `Content-Range: bytes <start>-<end>/<total>`. Its
 * body is bytes, so it has no request schema. An exact repeat of a stored range is accepted again, so
 * it is safe to resend; the chunk loop (`send-chunks.ts`) decides how.
 */
export const chunkUpload = {
  ...putChunkRoute,
  budget: "none",
  response: chunkAnswerSchema,
} as const satisfies OperationDeclaration;

/** Reads an upload: its status, and where a resumed upload goes on from (`receivedBytes`). */
export const uploadStatusRead = {
  ...statusRoute,
  budget: "none",
  response: uploadStatusAnswerSchema,
} as const satisfies OperationDeclaration;
