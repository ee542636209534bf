/**
 * The file service's operations as plain data (see `OperationRoute` of `@promo-review/http`): what
 * the chunker sends them by (name, method, path template, statuses, resend rule). No schema
 * here: an upload checks its answers by hand (`initiate.ts`, `put-chunk.ts`, `wait.ts`), tolerant
 * where the spec is silent, so a browser bundle carries no schema library. `./operations` composes
 * each route with its valibot schemas and budget for the OpenAPI generator.
 */
import type { CompositeOperation, OperationRoute } from "@promo-review/http";

/** Starts an upload (201 in the simulator; not shown in the spec, docs/gaps.md row 16). */
export const initiateRoute = {
  name: "uploads.initiate",
  method: "POST",
  path: "/v1/uploads",
  statuses: [201],
  resend: "notProcessed",
} as const satisfies OperationRoute;

/**
 * Sends one chunk to the `uploadUrl`, the resource the template names (`PUT /v1/uploads/{uploadId}`
 * "(the uploadUrl)"). An exact repeat of a stored range is accepted again, so it is safe to resend;
 * the chunk loop (`send-chunks.ts`) decides how.
 */
export const putChunkRoute = {
  name: "uploads.putChunk",
  method: "PUT",
  path: "/v1/uploads/{uploadId}",
  statuses: [200],
  resend: "safe",
} as const satisfies OperationRoute;

/** Reads an upload: its status, and where a resumed upload goes on from (`receivedBytes`). */
export const statusRoute = {
  name: "uploads.status",
  method: "GET",
  path: "/v1/uploads/{uploadId}",
  statuses: [200],
  resend: "safe",
} as const satisfies OperationRoute;

/**
 * An upload (`uploads.upload`): its initiation (unless it resumes), its chunks, and the status reads
 * that resynchronise it and wait for its processing, each request named by its own route under it.
 */
export const uploadOperation = {
  name: "uploads.upload",
  steps: [initiateRoute, putChunkRoute, statusRoute],
} as const satisfies CompositeOperation;

/** Waiting for an upload's processing (`uploads.waitForCompletion`): its status reads. */
export const waitForCompletionOperation = {
  name: "uploads.waitForCompletion",
  steps: [statusRoute],
} as const satisfies CompositeOperation;
