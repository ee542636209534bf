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
    const body = options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
    const res = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${options.key ?? sim.apiKey}`,
        "X-External-User-ID": sim.externalUserId,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
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
  const upload = await fetch(`${sim.filesUrl}/v1/uploads`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${sim.apiKey}`,
      "X-External-User-ID": sim.externalUserId,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ fileName: "flyer.pdf", fileSize: 10, contentType: "application/pdf" }),
  }).then((r) => r.json() as Promise<Body>);
  const { content: _content, ...rest } = sampleTextPromotion(sim.reference);
  await send("main", "POST", "/v1/promotions", {
    json: { ...rest, fileFormat: "pdf", uploadIds: [upload.uploadId] },
  }); // 409 upload_not_ready
}
