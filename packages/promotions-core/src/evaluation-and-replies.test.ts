import {
  AbortError,
  NotFoundError,
  ParentNotFoundError,
  ServerError,
  ValidationError,
} from "@promo-review/errors";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { readingOf, useSimulator } from "../../../testing/simulator.ts";
import { clientFor, requestsTo, simTextBody } from "../test/support/sim.js";

const sim = useSimulator(startSimulator, {
  mainApiLimit: 100_000,
  evaluationDelayMs: 50,
  commentIndexDelayMs: 250,
  seed: 9,
});

async function evaluated() {
  const promotions = clientFor(sim());
  const created = await promotions.create(simTextBody(sim()));
  const started = await promotions.evaluate(created.promotionId, created.versionId);
  return { promotions, created, started };
}

describe("evaluation read (gap: the polling fallback): processing, then the result", () => {
  it("reads the evaluation until it finishes, keeping unknown fields", async () => {
    // Long enough that the first read sees it processing even on a loaded machine.
    sim().control.setDelays({ evaluationDelayMs: 1000 });
    const { promotions, created, started } = await evaluated();
    const first = await promotions.evaluation(created.promotionId, created.versionId, started.evaluationId);
    // On a loaded machine the evaluation may already be over at the first read: either is a valid answer.
    expect(first).toMatchObject({ evaluationId: started.evaluationId });
    expect(["processing", "completed"]).toContain(first.status);
    let record = first;
    while (record.status === "processing") {
      await new Promise((resolve) => setTimeout(resolve, 25));
      record = await promotions.evaluation(created.promotionId, created.versionId, started.evaluationId);
    }
    // Any status but processing is final; its name and the record's other fields are not shown
    // (docs/gaps.md rows 5 and 9).
    expect(record.status).not.toBe("processing");
    if (readingOf(sim(), 9) === "default") expect(record.status).toBe("completed");
    if (readingOf(sim(), 5) !== "minimal") expect(record.issues?.length).toBeGreaterThan(0);
    expect(record.correlationId).toEqual(expect.any(String));
  });
  it("refuses a malformed id locally and maps an unknown one to NotFoundError", async () => {
    const { promotions, created } = await evaluated();
    await expect(
      promotions.evaluation(created.promotionId, created.versionId, "nope"),
    ).rejects.toBeInstanceOf(ValidationError);
    const other = await promotions.create(simTextBody(sim()));
    const started = await promotions.evaluate(other.promotionId, other.versionId);
    await expect(
      promotions.evaluation(created.promotionId, created.versionId, started.evaluationId),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
  it("takes a configured path", async () => {
    const { created, started } = await evaluated();
    const promotions = clientFor(sim(), {
      evaluationPath: (p, v, e) => `/v1/promotions/${p}/versions/${v}/evaluations/${e}?view=full`,
    });
    await promotions.evaluation(created.promotionId, created.versionId, started.evaluationId);
    expect(sim().control.requests().at(-1)!.query).toEqual({ view: "full" });
  });
});

describe("comment replies retry while the service answers PARENT_NOT_FOUND", () => {
  async function commentOfFinishedEvaluation() {
    const { promotions, started } = await evaluated();
    while (
      !sim()
        .control.evaluations()
        .some((e) => e.evaluationId === started.evaluationId && e.status !== "processing")
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const evaluation = sim()
      .control.evaluations()
      .find((e) => e.evaluationId === started.evaluationId)!;
    return { promotions, commentId: evaluation.issues[0]!.commentId! };
  }

  it("sends commentId as parentCommentId, retries until indexed, one correlation id throughout", async () => {
    const { promotions, commentId } = await commentOfFinishedEvaluation();
    const retries: number[] = [];
    const reply = await promotions.replyToComment(
      commentId,
      { content: "Risk warning added in version 2" },
      { baseDelayMs: 40, maxDelayMs: 80, maxAttempts: 20, onRetry: ({ attempt }) => retries.push(attempt) },
    );
    expect(reply.parentCommentId).toBe(commentId);
    expect(reply.replyAttempts).toBe(retries.length + 1);
    expect(retries.length).toBeGreaterThan(0);
    const posts = requestsTo(sim(), "POST", "/v1/comments");
    // PARENT_NOT_FOUND's status and the reply's success status are not shown (rows 14, 16).
    const notFound = readingOf(sim(), 14) === "parent-not-found-409" ? 409 : 404;
    const accepted = readingOf(sim(), 14) === "reply-200-minimal" ? 200 : 201;
    expect(posts.map((p) => p.status)).toEqual([...retries.map(() => notFound), accepted]);
    // $response describes the post that was accepted; replyAttempts counts the PARENT_NOT_FOUND rounds.
    expect(reply.$response).toMatchObject({
      status: accepted,
      attempts: 1,
      correlationId: reply.correlationId,
    });
    expect(new Set(posts.map((p) => p.correlationId)).size).toBe(1);
  });
  it("gives up after maxAttempts with the last ParentNotFoundError", async () => {
    const promotions = clientFor(sim());
    const error = await promotions
      .replyToComment("unknown-comment", {}, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParentNotFoundError);
    expect(requestsTo(sim(), "POST", "/v1/comments")).toHaveLength(3);
  });
  it("throws other errors at once, refuses a missing id locally, and stops on abort", async () => {
    const promotions = clientFor(sim(), { commentReplyPath: () => "/v1/comments" });
    await expect(promotions.replyToComment("")).rejects.toBeInstanceOf(ValidationError);
    const controller = new AbortController();
    const aborted = promotions
      .replyToComment(
        "unknown-comment",
        {},
        {
          baseDelayMs: 60_000,
          maxDelayMs: 60_000,
          random: () => 1,
          signal: controller.signal,
          onRetry: () => controller.abort(),
        },
      )
      .catch((e: unknown) => e);
    expect(await aborted).toBeInstanceOf(AbortError);
    await sim().control.addFault({
      route: "POST /v1/comments",
      kind: "status",
      status: 500,
      code: "INTERNAL_ERROR",
      count: 1,
    });
    const before = requestsTo(sim(), "POST", "/v1/comments").length;
    await expect(promotions.replyToComment("x", {}, { baseDelayMs: 1 })).rejects.toBeInstanceOf(ServerError);
    expect(requestsTo(sim(), "POST", "/v1/comments").length - before).toBe(1);
  });
});

describe("a reply answered without parentCommentId (profile 1: docs/gaps.md row 14, reply-200-minimal)", () => {
  const minimal = useSimulator(startSimulator, { evaluationDelayMs: 5, commentIndexDelayMs: 0, profile: 1 });
  it("keeps the parent it sent", async () => {
    expect(readingOf(minimal(), 14)).toBe("reply-200-minimal");
    const promotions = clientFor(minimal());
    const created = await promotions.create(simTextBody(minimal()));
    const started = await promotions.evaluate(created.promotionId, created.versionId);
    let issues: { commentId?: string }[] = [];
    while (issues.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const record = minimal()
        .control.evaluations()
        .find((e) => e.evaluationId === started.evaluationId);
      if (record && record.status !== "processing") issues = record.issues;
    }
    const reply = await promotions.replyToComment(issues[0]!.commentId!, { content: "ok" });
    expect(reply.parentCommentId).toBe(issues[0]!.commentId);
    expect(reply.commentId).toEqual(expect.any(String));
  });
});
