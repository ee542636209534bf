/**
 * The variant profile's readings that show only in what a response looks like: statuses, shapes and
 * headers of success replies and errors at the "not shown" points. The handlers answer the
 * simulator's own reading; these functions turn it into the profile's, after the fact, so the domain
 * code stays one reading and every variant sits in one place.
 */
import { ApiError, type ErrorCode, type Reply, STATUS_OF_CODE } from "./envelope.js";
import { type SimulatorProfile, takes, variantOf } from "./profile.js";
import type { RequestContext } from "./router.js";

type Body = Record<string, unknown>;
type Shaper = (reply: Reply, ctx: RequestContext, profile: SimulatorProfile) => Reply;

function pick(body: Body, keys: string[]): Body {
  return Object.fromEntries(keys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
}

function omit(body: Body, keys: string[]): Body {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));
}

/** Rows 4 and 15: reference records beyond `{id, name}`, and the list's wrapper. */
function referenceList(name: string): Shaper {
  return (reply, _ctx, profile) => {
    const listed = reply.body[name] as { id: string; name: string }[];
    const code = (r: { name: string }) => r.name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
    let records: Body[] = listed;
    if (takes(profile, 4, "extra-fields"))
      records = listed.map((r) => ({ ...r, code: code(r), active: true }));
    if (takes(profile, 4, "label-not-name"))
      records = listed.map((r) => ({ id: r.id, label: r.name, code: code(r) }));
    const wrapper = variantOf(profile, 15);
    if (wrapper === "items") return { ...reply, body: { items: records } };
    if (wrapper === "data") return { ...reply, body: { data: records, total: records.length } };
    return { ...reply, body: { [name]: records } };
  };
}

/** Rows 7 and 12: the chunk answer's status, headers and body. */
const chunkReply: Shaper = (reply, ctx, profile) => {
  const body = uploadObject(reply.body, profile);
  if (takes(profile, 12, "no-content")) return { status: 204, body: {}, empty: true };
  if (takes(profile, 12, "resume-308")) {
    const received = reply.body["receivedBytes"] as number;
    const { fileSize } = ctx.state.uploads.view(ctx.params["uploadId"]!);
    if (received < fileSize) {
      return { status: 308, body: {}, empty: true, headers: { Range: `bytes=0-${received - 1}` } };
    }
    return { status: 201, body };
  }
  return { ...reply, body };
};

/** Row 7: the upload object's status and fields. */
function uploadObject(body: Body, profile: SimulatorProfile): Body {
  if (takes(profile, 7, "pending-until-complete") && body["status"] === "uploading") {
    return { ...body, status: "pending" };
  }
  if (takes(profile, 7, "without-received-bytes")) return omit(body, ["receivedBytes"]);
  return body;
}

/** Every success reply the profile reshapes, by `METHOD pattern`. */
const SHAPERS: Record<string, Shaper> = {
  "POST /v1/promotions": (reply, _ctx, profile) => {
    const shape = variantOf(profile, 3);
    if (shape === "minimal")
      return { ...reply, body: pick(reply.body, ["promotionId", "versionId", "version"]) };
    if (shape === "without-public-id") return { ...reply, body: omit(reply.body, ["publicId"]) };
    return reply;
  },
  "GET /v1/products": referenceList("products"),
  "GET /v1/target-markets": referenceList("targetMarkets"),
  "POST /v1/promotions/:promotionId/versions/:versionId/evaluate": (reply, ctx, profile) =>
    takes(profile, 5, "extra-fields")
      ? {
          ...reply,
          body: { ...reply.body, promotionId: ctx.params["promotionId"], versionId: ctx.params["versionId"] },
        }
      : reply,
  "GET /v1/promotions/:promotionId/versions/:versionId/evaluations/:evaluationId": (reply, _ctx, profile) => {
    if (takes(profile, 5, "minimal")) return { ...reply, body: pick(reply.body, ["evaluationId", "status"]) };
    if (takes(profile, 5, "extra-fields")) {
      return { ...reply, body: { ...reply.body, createdAt: new Date().toISOString() } };
    }
    return reply;
  },
  "GET /v1/promotions/:promotionId/versions/:versionId/decision": (reply, _ctx, profile) =>
    takes(profile, 6, "decision-minimal") ? { ...reply, body: pick(reply.body, ["decision"]) } : reply,
  "GET /v1/uploads/:uploadId": (reply, _ctx, profile) => ({
    ...reply,
    body: uploadObject(reply.body, profile),
  }),
  "PUT /v1/uploads/:uploadId": chunkReply,
  "POST /v1/uploads": (reply, _ctx, profile) =>
    variantOf(profile, 16) === "default" ? reply : { ...reply, status: 200 },
  "POST /v1/promotions/:promotionId/versions/:versionId/submit": (reply, _ctx, profile) => {
    const codes: Record<string, number> = { accepted: 202, created: 201 };
    return { ...reply, status: codes[variantOf(profile, 16)] ?? reply.status };
  },
  "POST /v1/links": (reply, ctx, profile) => {
    const statusUrl = reply.body["statusUrl"];
    if (takes(profile, 8, "absolute-status-url") && typeof statusUrl === "string") {
      // The server's own origin, not the Host header a caller sent.
      const origin = `http://${ctx.req.socket.localAddress}:${ctx.req.socket.localPort}`;
      return { ...reply, body: { ...reply.body, statusUrl: `${origin}${statusUrl}` } };
    }
    return reply;
  },
  "GET /v1/links/imports/:importId": (reply, _ctx, profile) => {
    if (!takes(profile, 8, "queued-no-poll-format")) return reply;
    if (reply.body["status"] === "processing") return { ...reply, body: { ...reply.body, status: "queued" } };
    return { ...reply, body: omit(reply.body, ["fileFormat"]) };
  },
  "POST /v1/promotions/:promotionId/versions": (reply, ctx, profile) =>
    takes(profile, 10, "extended-response")
      ? {
          ...reply,
          body: {
            ...reply.body,
            promotionId: ctx.params["promotionId"],
            createdAt: new Date().toISOString(),
          },
        }
      : reply,
  "POST /v1/links/design/frames": (reply, _ctx, profile) => {
    const frames = reply.body["frames"] as Body[];
    if (takes(profile, 13, "extra-fields")) {
      return { ...reply, body: { frames: frames.map((f) => ({ ...f, type: "FRAME", page: "Page 1" })) } };
    }
    if (takes(profile, 13, "without-size")) {
      return { ...reply, body: { frames: frames.map((f) => pick(f, ["id", "name"])) } };
    }
    return reply;
  },
  "POST /v1/comments": (reply, _ctx, profile) =>
    takes(profile, 14, "reply-200-minimal") ? { status: 200, body: pick(reply.body, ["commentId"]) } : reply,
};

/** Row 25: headers every response of the profile carries. */
export function profileHeaders(profile: SimulatorProfile): Record<string, string> {
  return takes(profile, 25, "deprecation-headers") ? { Deprecation: "false", "API-Version": "1.0.0" } : {};
}

/** A success reply as the profile answers it (`route` is `METHOD pattern`). */
export function shapeReply(route: string, reply: Reply, ctx: RequestContext): Reply {
  const profile = ctx.state.profile;
  if (profile.seed === 0) return reply;
  const shaped = SHAPERS[route]?.(reply, ctx, profile) ?? reply;
  const withVersion =
    takes(profile, 25, "api-version-field") && !shaped.empty
      ? { ...shaped, body: { ...shaped.body, apiVersion: "1.0.0" } }
      : shaped;
  return { ...withVersion, headers: { ...withVersion.headers, ...profileHeaders(profile) } };
}

/** Row 21: statuses of the codes whose status the spec does not show. */
const STATUS_VARIANTS: Record<string, Partial<Record<ErrorCode, number>>> = {
  "gateway-503": { UPSTREAM_ERROR: 503, SERVICE_ERROR: 500 },
  "gateway-504": { UPSTREAM_ERROR: 504, SERVICE_ERROR: 503 },
};

/** The status of `code` in the profile (for errors and for status faults that name only a code). */
export function statusOfCode(profile: SimulatorProfile, code: ErrorCode): number {
  return STATUS_VARIANTS[variantOf(profile, 21)]?.[code] ?? STATUS_OF_CODE[code];
}

/** An error as the profile answers it: another status, code or details where the spec is silent. */
export function shapeError(error: ApiError, ctx: RequestContext): ApiError {
  const profile = ctx.state.profile;
  if (profile.seed === 0) return error;
  const headers = { ...error.headers, ...profileHeaders(profile) };
  // Only the status a code maps to is reread; a status chosen on purpose (a fault's) stays.
  let status = error.status === STATUS_OF_CODE[error.code] ? statusOfCode(profile, error.code) : error.status;
  let { code, details, message } = error;
  if (error.code === "PARENT_NOT_FOUND" && takes(profile, 14, "parent-not-found-409")) status = 409;
  const rangeConflict = details.some(
    (d) => d.type === "constraint_violation" && d.constraint === "content_range_start",
  );
  if (rangeConflict && takes(profile, 21, "gateway-504")) status = 416;
  if (error.code === "RATE_LIMITED" && takes(profile, 22, "no-retry-info")) {
    details = details.filter((d) => d.type !== "retry_info");
  }
  const header = /x-external-user-id/i.exec(error.message)?.[0];
  if (error.code === "INVALID_REQUEST" && header && takes(profile, 22, "header-validation-error")) {
    code = "VALIDATION_ERROR";
    message = `${header} is required`;
    details = [{ type: "field_error", field: header, message: "is required" }];
  }
  return new ApiError(code, message, details, { status, headers });
}
