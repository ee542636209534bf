/**
 * Link capture's operations on the main API as plain data (see `OperationRoute` of
 * `@promo-review/http`): what the client sends them by (name, method, path template, statuses, resend
 * rule). No schema here: the client checks its answers by hand (`capture.ts`, `poll.ts`, `frames.ts`),
 * so its bundle carries no schema library; `./operations` composes each route with its valibot
 * schemas and budget for the OpenAPI generator.
 */
import type { CompositeOperation, OperationRoute } from "@promo-review/http";

/**
 * Captures a link: a generic capture answers 201, a design-tool or cloud-drive import 202. Resent
 * only when not processed (a capture may have started).
 */
export const captureRoute = {
  name: "links.capture",
  method: "POST",
  path: "/v1/links",
  statuses: [201, 202],
  resend: "notProcessed",
} as const satisfies OperationRoute;

/**
 * Reads an import's status. The spec writes the path only as `{statusUrl}`: a client uses the URL it
 * was given exactly (its query carries the service's signature), never this template, which is the
 * one the simulator issues (`/v1/links/imports/{importId}?source=...&sig=...`, the import's upload id;
 * docs/gaps.md "Links"), so a poll names no `urlTemplate`.
 */
export const pollRoute = {
  name: "links.poll",
  method: "GET",
  path: "/v1/links/imports/{importId}",
  statuses: [200],
  resend: "safe",
} as const satisfies OperationRoute;

/** Lists a design file's frames; read-only, so resent like a read (docs/gaps.md row 13). */
export const framesRoute = {
  name: "links.discoverFrames",
  method: "POST",
  path: "/v1/links/design/frames",
  statuses: [200],
  resend: "safe",
} as const satisfies OperationRoute;

/**
 * Starts an import (`links.startImport`): the capture's request, answered with the poll that follows
 * it. An operation of its own, beside `links.capture`, which also waits.
 */
export const startImportOperation = {
  name: "links.startImport",
  steps: [captureRoute],
} as const satisfies CompositeOperation;

/** Waits for an import (`links.wait`): its status read until it is done, the poll's own operation. */
export const waitOperation = {
  name: "links.wait",
  steps: [pollRoute],
} as const satisfies CompositeOperation;
