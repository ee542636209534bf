/**
 * A realistic session against the simulator over real HTTP, every answer recorded: what a client
 * does in a day (reference data, a promotion and its versions, review, evaluation, comment replies)
 * and the errors it meets on the way. Test-only.
 */
import { type Simulator, sampleTextPromotion } from "@promo-review/simulator";
import { waitFor } from "../../../../testing/wait-for.ts";
import type { RecordedAnswer } from "./described.js";

/** How one request is sent. */
export interface SendOptions {
  readonly json?: unknown;
  readonly raw?: string;
  /** A chunk's bytes, sent as application/octet-stream. */
  readonly bytes?: Uint8Array;
  readonly key?: string;
  readonly headers?: Record<string, string>;
}

/** A client for both services that records every answer it reads. */
export function recordingClient(sim: Simulator, answers: RecordedAnswer[]) {
  return async function send(
    service: "main" | "files",
    method: string,
    path: string,
    options: SendOptions = {},
  ): Promise<RecordedAnswer> {
    const url = `${service === "main" ? sim.baseUrl : sim.filesUrl}${path}`;
    const body: BodyInit | undefined =
      (options.bytes as BodyInit | undefined) ??
      options.raw ??
      (options.json === undefined ? undefined : JSON.stringify(options.json));
    const res = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${options.key ?? sim.apiKey}`,
        "X-External-User-ID": sim.externalUserId,
        ...(body === undefined
          ? {}
          : { "Content-Type": options.bytes ? "application/octet-stream" : "application/json" }),
        ...options.headers,
      },
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    const answer: RecordedAnswer = {
      service,
      method,
      path: path.split("?")[0]!,
      status: res.status,
      body: text === "" ? undefined : JSON.parse(text),
    };
    answers.push(answer);
    return answer;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the run reads fields of answers it has just checked
type Body = any;

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** The main API's day: every promotion, evaluation, comment and reference operation. */
export async function mainApiDay(sim: Simulator, send: ReturnType<typeof recordingClient>): Promise<void> {
  for (const path of ["/v1/channels", "/v1/jurisdictions", "/v1/products", "/v1/target-markets"])
    await send("main", "GET", path);
  const created = (await send("main", "POST", "/v1/promotions", { json: sampleTextPromotion(sim.reference) }))
    .body as Body;
  const promotion = `/v1/promotions/${created.promotionId}`;
  await send("main", "GET", promotion);
  const version = (
    await send("main", "POST", `${promotion}/versions`, {
      json: { fileFormat: "text", content: "<p>Save 6% this summer. Capital at risk.</p>", details: "v2" },
    })
  ).body as Body;
  const versionPath = `${promotion}/versions/${version.versionId}`;
  await send("main", "POST", `${versionPath}/submit`, { json: {} });
  await send("main", "POST", `${versionPath}/submit`, { json: { reviewerEmail: "reviewer@example.com" } });
  await send("main", "GET", `${versionPath}/decision`);
  sim.control.setDecision(created.promotionId, version.versionId, {
    decision: "approved",
    rationale: "Fine",
  });
  await send("main", "GET", `${versionPath}/decision`);
  const started = (await send("main", "POST", `${versionPath}/evaluate`)).body as Body;
  let evaluation: Body;
  await waitFor(
    async () => {
      evaluation = (await send("main", "GET", `${versionPath}/evaluations/${started.evaluationId}`)).body;
      return evaluation.status !== "processing";
    },
    10_000,
    "the evaluation to finish",
  );
  const commentId = (evaluation.issues as { commentId?: string }[]).find((i) => i.commentId)?.commentId;
  if (!commentId) throw new Error("the evaluation found no comment-backed issue to reply to");
  await waitFor(
    async () =>
      (await send("main", "POST", "/v1/comments", { json: { parentCommentId: commentId, text: "Fixed" } }))
        .status === 201,
    10_000,
    "the comment to be indexed",
  );

  // The errors a client meets on the way.
  await send("main", "POST", "/v1/promotions", { json: { promotionName: "" } }); // 400 VALIDATION_ERROR
  await send("main", "POST", "/v1/promotions", { raw: "not json" }); // 400 INVALID_REQUEST
  await send("main", "GET", "/v1/channels", { headers: { "X-External-User-ID": "" } }); // 400 header
  await send("main", "GET", promotion, { key: sim.keys.revokedKey }); // 401
  await send("main", "GET", promotion, { key: sim.keys.unconfiguredKey }); // 403
  await send("main", "GET", `/v1/promotions/${UNKNOWN_ID}`); // 404
  await send("main", "GET", `${promotion}/versions/${UNKNOWN_ID}/decision`); // 404
  await send("main", "POST", "/v1/comments", { json: { parentCommentId: UNKNOWN_ID } }); // 404 PARENT_NOT_FOUND
  await send("main", "POST", "/v1/promotions", { raw: JSON.stringify({ content: "x".repeat(1_100_000) }) }); // 413
}

/** A creation naming an upload that has not finished: 409 with upload_not_ready. */
export async function uploadNotReadyConflict(sim: Simulator, send: ReturnType<typeof recordingClient>) {
  const upload = (
    await send("files", "POST", "/v1/uploads", {
      json: { fileName: "flyer.pdf", fileSize: 10, contentType: "application/pdf" },
    })
  ).body as Body;
  const { content: _content, ...rest } = sampleTextPromotion(sim.reference);
  await send("main", "POST", "/v1/promotions", {
    json: { ...rest, fileFormat: "pdf", uploadIds: [upload.uploadId] },
  }); // 409 upload_not_ready
}

/** Link capture's day: a screenshot, a drive import, a design frame, polls, discovery, and refusals. */
export async function linkDay(send: ReturnType<typeof recordingClient>): Promise<void> {
  await send("main", "POST", "/v1/links", { json: { url: "https://example.com/offer" } }); // 201
  const design = "https://www.figma.com/design/AbC123/Campaign";
  await send("main", "POST", "/v1/links/design/frames", { json: { url: design } });
  for (const json of [
    { url: "https://docs.google.com/document/d/1x2y3z/edit" },
    { url: design, designFrameId: "1:2" },
  ]) {
    const started = (await send("main", "POST", "/v1/links", { json })).body as Body;
    await waitFor(
      async () => ((await send("main", "GET", started.statusUrl)).body as Body).status === "completed",
      10_000,
      "the import to complete",
    );
    await send("main", "GET", `${started.statusUrl}x`); // 404: the query must be sent back unchanged
  }
  await send("main", "POST", "/v1/links", { json: { url: "ftp://example.com/a" } }); // 400
  await send("main", "POST", "/v1/links", { json: { url: "https://drive.google.com/file/d/private/abc" } }); // 403
  await send("main", "POST", "/v1/links", { json: { url: design, designFrameId: "9:99" } }); // 400 frame too large
  await send("main", "POST", "/v1/links/design/frames", { json: { url: "https://example.com/" } }); // 400
}

/** The file service's day: an upload in two chunks, its status, and the refusals a client meets. */
export async function fileDay(sim: Simulator, send: ReturnType<typeof recordingClient>): Promise<void> {
  const size = 100_000;
  const bytes = new Uint8Array(size).map((_, i) => i % 251);
  const upload = (
    await send("files", "POST", "/v1/uploads", {
      json: { fileName: "flyer.pdf", fileSize: size, contentType: "application/pdf" },
    })
  ).body as Body;
  const url = upload.uploadUrl as string;
  const half = 60_000;
  await send("files", "GET", url); // pending
  await send("files", "PUT", url, {
    bytes: bytes.slice(0, half),
    headers: { "Content-Range": `bytes 0-${half - 1}/${size}` },
  });
  await send("files", "PUT", url, {
    bytes: bytes.slice(0, 10),
    headers: { "Content-Range": `bytes 5-14/${size}` },
  }); // 409
  await send("files", "PUT", url, { bytes: bytes.slice(0, 10) }); // 400: no Content-Range
  await send("files", "PUT", url, {
    bytes: new Uint8Array(70_000),
    headers: { "Content-Range": `bytes ${half}-${half + 69_999}/*` },
  }); // 413
  await send("files", "GET", url); // uploading
  await send("files", "PUT", url, {
    bytes: bytes.slice(half),
    headers: { "Content-Range": `bytes ${half}-${size - 1}/${size}` },
  });
  await waitFor(
    async () => ((await send("files", "GET", url)).body as Body).status === "completed",
    10_000,
    "the upload to complete",
  );
  await send("files", "GET", `/v1/uploads/${UNKNOWN_ID}`); // 404
  await send("files", "POST", "/v1/uploads", {
    json: { fileName: "big.pdf", fileSize: 40_000_000, contentType: "application/pdf" },
  }); // 413
  await send("files", "POST", "/v1/uploads", { json: { fileName: "" } }); // 400
  await send("files", "GET", url, { key: sim.keys.revokedKey }); // 401
  await send("files", "GET", url, { key: sim.keys.unconfiguredKey }); // 403
  await send("files", "GET", url, {
    key: sim.sessionToken,
    headers: { "X-External-User-ID": "", "x-service-workspace-id": sim.workspaceId },
  }); // a session token alone
}
