/**
 * Link capture's operations on the main API, each declared once: its route (`routes.ts`, what the
 * client sends by) with valibot schemas (see `OperationDeclaration` of `@promo-review/http`): the capture (POST /v1/links), the import status
 * poll (GET {statusUrl}) and frame discovery. A description of the service (OpenAPI) is generated from
 * them. The schemas state what the client checks (`capture.ts`, `poll.ts`, `frames.ts`): what the
 * spec states is required, the rest open, unknown fields kept.
 */
import type { OperationDeclaration } from "@promo-review/http";
import * as v from "valibot";
import { captureRoute, framesRoute, pollRoute } from "./routes.js";

const uuid = v.pipe(v.string(), v.uuid());
const nonEmpty = v.pipe(v.string(), v.minLength(1));

/** The body of a capture: the link and, for a design file, the frame to import. */
export const captureRequestSchema = v.looseObject({
  url: nonEmpty,
  designFrameId: v.optional(nonEmpty),
});

/** A finished generic capture (201): the stored screenshot's upload id and its format. */
export const capturedAnswerSchema = v.looseObject({
  uploadId: uuid,
  fileFormat: nonEmpty,
  source: v.optional(v.string()),
});

/** A started import (202): its upload id, the `statusUrl` to poll exactly as given, and its format when known. */
export const importStartedAnswerSchema = v.looseObject({
  uploadId: uuid,
  statusUrl: nonEmpty,
  fileFormat: v.optional(nonEmpty),
  source: v.optional(v.string()),
});

/** A capture's answer: an import when it holds a `statusUrl`, else a finished capture (read from the body, not the status). */
export const captureAnswerSchema = v.union([importStartedAnswerSchema, capturedAnswerSchema]);

/**
 * An import's status. Only `completed` is in the spec, with `finalUploadId` (uuid); every other value,
 * or none, means "not yet" or a failure (docs/gaps.md row 8), so it is open.
 */
export const importStatusAnswerSchema = v.union([
  v.looseObject({ status: v.literal("completed"), finalUploadId: uuid, fileFormat: v.optional(nonEmpty) }),
  v.looseObject({ status: v.optional(v.pipe(v.string(), v.notValue("completed"))) }),
]);

/** The body of frame discovery: the design file's link (docs/gaps.md row 13). */
export const discoverFramesRequestSchema = v.looseObject({ url: nonEmpty });

/** Frame discovery's answer: the design file's frames, read as `[]` when absent (docs/gaps.md row 13). */
export const framesAnswerSchema = v.looseObject({
  frames: v.optional(
    v.array(
      v.looseObject({
        id: v.optional(v.string()),
        name: v.optional(v.string()),
        width: v.optional(v.number()),
        height: v.optional(v.number()),
      }),
    ),
  ),
});

/**
 * Captures a link: a generic capture answers 201, a design-tool or cloud-drive import 202. Spends the
 * link-capture budget (10 a minute per key) besides the shared one; resent only when not processed.
 */
export const captureLink = {
  ...captureRoute,
  request: captureRequestSchema,
  response: captureAnswerSchema,
  budget: "links",
} as const satisfies OperationDeclaration;

/**
 * Reads an import's status. The spec writes the path only as `{statusUrl}`: a client uses the URL it
 * was given exactly (its query carries the service's signature), never this template, which is the
 * one the simulator issues (`/v1/links/imports/{importId}?source=...&sig=...`, the import's upload id; docs/gaps.md "Links").
 */
export const pollImport = {
  ...pollRoute,
  response: importStatusAnswerSchema,
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Lists a design file's frames; read-only, so resent like a read (docs/gaps.md row 13). */
export const discoverDesignFrames = {
  ...framesRoute,
  request: discoverFramesRequestSchema,
  response: framesAnswerSchema,
  budget: "shared",
} as const satisfies OperationDeclaration;
