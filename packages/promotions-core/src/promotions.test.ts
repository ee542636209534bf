import {
  AbortError,
  NetworkError,
  NotFoundError,
  PromoReviewError,
  UploadNotReadyError,
  ValidationError,
} from "@promo-review/errors";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { readingOf, useSimulator } from "../../../testing/simulator.ts";
import {
  chunkerWaiter,
  clientFor,
  requestsTo,
  simTextBody,
  startUpload,
  uploadCompleted,
} from "../test/support/sim.js";

// Processing lasts long enough that a creation sent right after the upload always meets the 409,
// however loaded the machine (the tests below depend on seeing it).
const sim = useSimulator(startSimulator, { mainApiLimit: 100_000, uploadProcessingDelayMs: 1_000, seed: 6 });

const UUID = /^[0-9a-f-]{36}$/i;
/** A version just submitted is under review; which of these statuses it shows is not shown (row 6). */
const UNDER_REVIEW = ["pending", "in_review"];

describe("create: 201 with promotion, version, publicId, metadata, tags and correlationId", () => {
  it("returns the typed result and keeps the service's correlation id", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(
      simTextBody(sim(), { metadata: { campaign: "spring-2025" }, tags: [" spring ", "spring", "savings"] }),
    );
    expect(created.version).toBe(1);
    // Which optional fields the creation response carries is not shown (docs/gaps.md row 3): each is
    // the service's when sent, the documented default when not.
    const shape = readingOf(sim(), 3);
    expect(created).toMatchObject(
      shape === "minimal"
        ? { metadata: {}, tags: [] }
        : { metadata: { campaign: "spring-2025" }, tags: ["spring", "savings"] },
    );
    expect(created.promotionId).toMatch(UUID);
    expect(created.versionId).toMatch(UUID);
    if (shape === "default") expect(created.publicId).toMatch(/^PR-/);
    else expect(created.publicId).toBeUndefined();
    expect(created.correlationId).toBe(requestsTo(sim(), "POST", "/v1/promotions")[0]!.correlationId);
  });
  it("sends the normalised tags the service attaches", async () => {
    await clientFor(sim()).create(simTextBody(sim(), { tags: ["  a  ", "a", "b"] }));
    expect(requestsTo(sim(), "POST", "/v1/promotions")).toHaveLength(1);
  });
});

describe("headers: key, acting user, optional email, one correlation id per operation", () => {
  it("sends X-External-User-ID, the email when configured, and the caller's correlation id", async () => {
    const promotions = clientFor(sim(), {
      apiKey: sim().apiKey,
      externalUserId: sim().externalUserId,
      externalUserEmail: "ana@example.com",
    });
    const created = await promotions.create(simTextBody(sim()), { correlationId: "trace-create-1" });
    expect(created.correlationId).toBe("trace-create-1");
    const [entry] = requestsTo(sim(), "POST", "/v1/promotions");
    expect(entry!.headers["x-external-user-id"]).toBe(sim().externalUserId);
    expect(entry!.headers["x-external-user-email"]).toBe("ana@example.com");
    expect(entry!.headers["authorization"]).toBeDefined();
  });
  it("makes a fresh id per operation", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    await promotions.get(created.promotionId);
    await promotions.get(created.promotionId);
    const ids = sim()
      .control.requests()
      .map((r) => r.correlationId);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("409 upload_not_ready: waited out, then sent again with the same correlation id", () => {
  it("clears after the upload completes, reading status from the file service (upload-chunker's waiter)", async () => {
    const promotions = clientFor(sim(), { waitForUploads: chunkerWaiter(sim()) });
    const uploadId = await startUpload(sim());
    const created = await promotions.create(
      simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }),
    );
    const posts = requestsTo(sim(), "POST", "/v1/promotions");
    expect(posts.map((p) => p.status)).toEqual([409, 201]);
    expect(new Set(posts.map((p) => p.correlationId))).toEqual(new Set([created.correlationId]));
    const statusReads = sim()
      .control.requests()
      .filter((r) => r.service === "files" && r.method === "GET");
    expect(statusReads.length).toBeGreaterThan(0);
  });
  it("uses an injected waiter when given, with the ids the 409 named", async () => {
    const asked: string[][] = [];
    const promotions = clientFor(sim(), {
      waitForUploads: async (ids) => {
        asked.push(ids);
        while (sim().control.upload(ids[0]!).status !== "completed")
          await new Promise((r) => setTimeout(r, 10));
      },
    });
    const uploadId = await startUpload(sim());
    const version = await promotions
      .create(simTextBody(sim()))
      .then((p) => promotions.createVersion(p.promotionId, { fileFormat: "pdf", uploadIds: [uploadId] }));
    expect(version.version).toBe(2);
    expect(asked).toEqual([[uploadId]]);
  });
  it("backs off and retries when nothing can report readiness", async () => {
    const promotions = clientFor(sim(), { uploadRetryDelayMs: 50 });
    const uploadId = await startUpload(sim());
    await promotions.create(
      simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }),
    );
    const statuses = requestsTo(sim(), "POST", "/v1/promotions").map((p) => p.status);
    expect(statuses.at(-1)).toBe(201);
    expect(statuses.slice(0, -1).every((s) => s === 409)).toBe(true);
  });
  it("gives up at the deadline with an UploadNotReadyError naming the upload; nothing was created", async () => {
    const promotions = clientFor(sim(), { waitForUploads: chunkerWaiter(sim()), uploadWaitTimeoutMs: 200 });
    const uploadId = await startUpload(sim(), { send: false });
    const error = await promotions
      .create(simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadNotReadyError);
    expect((error as UploadNotReadyError).notReadyUploadIds).toEqual([uploadId]);
    expect((error as Error).message).toMatch(/still not ready after waiting/);
  });
  it("stops with an AbortError when the caller aborts the wait", async () => {
    const controller = new AbortController();
    const waiter = chunkerWaiter(sim());
    // Aborted once the wait has begun, so after the 409 was answered: an abort racing the POST itself
    // would leave it to reach the simulator after the next test's reset, in that test's request log.
    const promotions = clientFor(sim(), {
      waitForUploads: (ids, options) => {
        setTimeout(() => controller.abort(), 50);
        return waiter(ids, options);
      },
    });
    const uploadId = await startUpload(sim(), { send: false });
    const pending = promotions.create(
      simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }),
      {
        signal: controller.signal,
      },
    );
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });
  it("normalises a waiter that rejects with its own error on abort", async () => {
    const controller = new AbortController();
    const promotions = clientFor(sim(), {
      waitForUploads: (_ids, { signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new Error("waiter stopped")));
          // The caller aborts while the wait is under way (the 409 has been answered).
          setTimeout(() => controller.abort(), 20);
        }),
    });
    const uploadId = await startUpload(sim(), { send: false });
    const pending = promotions.create(
      simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }),
      {
        signal: controller.signal,
      },
    );
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });
  it("ends with the waiter's error when the file service reports the upload failed", async () => {
    const uploadId = await startUpload(sim(), { fileName: "flyer-fail-processing.pdf" });
    const promotions = clientFor(sim(), { waitForUploads: chunkerWaiter(sim()) });
    const error = await promotions
      .create(simTextBody(sim(), { fileFormat: "pdf", content: undefined, uploadIds: [uploadId] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromoReviewError);
    expect((error as PromoReviewError).code).toBe("UPLOAD_FAILED");
    expect((error as Error).message).toContain(uploadId);
    expect(requestsTo(sim(), "POST", "/v1/promotions").map((p) => p.status)).toEqual([409]);
  });
});

describe("creation is never resent after a failure that may have reached the service", () => {
  it("says the promotion may or may not exist, and sends once", async () => {
    sim().control.addFault({ route: "POST /v1/promotions", kind: "reset", count: 1 });
    const error = await clientFor(sim())
      .create(simTextBody(sim()), { correlationId: "trace-reset" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).mayHaveReachedServer).toBe(true);
    expect((error as NetworkError).retryable).toBe(false);
    expect((error as NetworkError).correlationId).toBe("trace-reset");
    expect((error as Error).message).toMatch(/may or may not exist/);
    expect(requestsTo(sim(), "POST", "/v1/promotions")).toHaveLength(1);
  });
  it("does resend after a 429, which means not processed", async () => {
    sim().control.addFault({
      route: "POST /v1/promotions",
      kind: "rate-limit",
      retryAfterSeconds: 0,
      count: 2,
    });
    const created = await clientFor(sim()).create(simTextBody(sim()));
    const posts = requestsTo(sim(), "POST", "/v1/promotions");
    expect(posts.map((p) => p.status)).toEqual([429, 429, 201]);
    expect(new Set(posts.map((p) => p.correlationId))).toEqual(new Set([created.correlationId]));
  });
  it("leaves other errors as they are", async () => {
    const error = await clientFor(sim())
      .get("00000000-0000-4000-8000-000000000000")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});

describe("the latest version is read from the promotion, never tracked locally", () => {
  it("finds a version added in the web app", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    const web = sim().control.addWebAppVersion(created.promotionId);
    const promotion = await promotions.get(created.promotionId);
    expect(promotion).toMatchObject({
      latestVersionId: web.versionId,
      latestVersion: 2,
      versionCount: 2,
      status: "none",
    });
    const submitted = await promotions.submitLatest(created.promotionId, {
      reviewerEmail: "rev@example.com",
    });
    expect(submitted).toMatchObject({ versionId: web.versionId, version: 2 });
    expect(UNDER_REVIEW).toContain(submitted.status);
    sim().control.setDecision(created.promotionId, web.versionId, {
      decision: "approved",
      rationale: "Fine",
    });
    const decision = await promotions.decisionOfLatest(created.promotionId, {
      correlationId: "trace-latest",
    });
    expect(decision).toMatchObject({ decision: "approved", versionId: web.versionId });
    // Who, when and why are the service's to send or not (docs/gaps.md row 6).
    if (readingOf(sim(), 6) !== "decision-minimal") expect(decision.rationale).toBe("Fine");
    // One operation, one correlation id: the read of the promotion and the decision share it.
    expect(
      sim()
        .control.requests()
        .filter((r) => r.correlationId === "trace-latest"),
    ).toHaveLength(2);
  });
});

describe("new versions: validated, 201 with versionId and version", () => {
  it("adds version 2 and refuses over-long details before sending", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    const uploadId = await uploadCompleted(sim());
    const v2 = await promotions.createVersion(created.promotionId, {
      fileFormat: "pdf",
      uploadIds: [uploadId],
      details: "New artwork",
    });
    expect(v2).toMatchObject({ version: 2 });
    expect(v2.versionId).toMatch(UUID);
    const before = sim().control.requests().length;
    const error = await promotions
      .createVersion(created.promotionId, { fileFormat: "text", content: "v3", details: "x".repeat(1501) })
      .catch((e: unknown) => e);
    expect((error as ValidationError).fieldErrors[0]?.field).toBe("details");
    expect(sim().control.requests().length).toBe(before);
  });
  it("refuses an id that is not a UUID without a request", async () => {
    const promotions = clientFor(sim());
    await expect(promotions.get("PR-000123")).rejects.toBeInstanceOf(ValidationError);
    await expect(promotions.decision("00000000-0000-4000-8000-000000000000", "v1")).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(sim().control.requests()).toHaveLength(0);
  });
});

describe("submit: a safe retry; decisions on any version; evaluate: 202 processing", () => {
  it("submits, resubmits safely, reads decisions of version 1 and 2, evaluates", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    const submitted = await promotions.submit(created.promotionId, created.versionId, {
      deadline: "2030-01-31",
    });
    expect(UNDER_REVIEW).toContain(submitted.status);
    expect(await promotions.submit(created.promotionId, created.versionId)).toMatchObject({
      status: submitted.status,
    });
    const v2 = await promotions.createVersion(created.promotionId, { fileFormat: "text", content: "v2" });
    sim().control.setDecision(created.promotionId, created.versionId, {
      decision: "changes_requested",
      rationale: "Risk warning",
    });
    const first = await promotions.decision(created.promotionId, created.versionId);
    expect(first.decision).toBe("changes_requested");
    // Who decided, when and why are not shown (row 6): present only when the service sends them.
    if (readingOf(sim(), 6) !== "decision-minimal") {
      expect(first).toMatchObject({ rationale: "Risk warning" });
      expect(first.decidedByUserId).toBeDefined();
    }
    const second = await promotions.decision(created.promotionId, v2.versionId);
    expect(second.decision).toBe("none");
    expect(second.decidedAt).toBeUndefined();
    const evaluation = await promotions.evaluate(created.promotionId, v2.versionId);
    expect(evaluation.status).toBe("processing");
    expect(evaluation.evaluationId).toMatch(UUID);
    expect(evaluation.correlationId).toMatch(UUID);
  });
  it("retries a submit after a 5xx, as a safe retry", async () => {
    const promotions = clientFor(sim(), { retry: { baseDelayMs: 1 } });
    const created = await promotions.create(simTextBody(sim()));
    sim().control.addFault({ route: "POST /v1/promotions/*/submit", kind: "status", status: 503, count: 1 });
    expect(UNDER_REVIEW).toContain((await promotions.submit(created.promotionId, created.versionId)).status);
    const statuses = requestsTo(sim(), "POST", /\/submit$/).map((r) => r.status);
    expect(statuses).toHaveLength(2);
    expect(statuses[0]).toBe(503);
    expect(statuses[1]).toBeGreaterThanOrEqual(200);
    expect(statuses[1]).toBeLessThan(300);
  });
  it("refuses a malformed submit deadline locally", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    const before = sim().control.requests().length;
    const error = await promotions
      .submit(created.promotionId, created.versionId, { deadline: "next week" })
      .catch((e: unknown) => e);
    expect((error as ValidationError).fieldErrors.map((f) => f.field)).toEqual(["deadline"]);
    expect(sim().control.requests().length).toBe(before);
  });
});

describe("local and server refusals name the same fields", () => {
  it("variations.2.details over 1500 and tags over 20, with validation on and off", async () => {
    const body = {
      ...simTextBody(sim()),
      fileFormat: undefined,
      content: undefined,
      variations: [{ content: "a" }, { content: "b" }, { content: "c", details: "d".repeat(1600) }],
      metadata: { "bad key": "x" },
    };
    const local = (await clientFor(sim())
      .create(body)
      .catch((e: unknown) => e)) as ValidationError;
    const remote = (await clientFor(sim(), { validate: false })
      .create(body)
      .catch((e: unknown) => e)) as ValidationError;
    expect(local.local).toBe(true);
    expect(remote.local).toBe(false);
    expect(remote.status).toBe(400);
    const fields = (e: ValidationError) => e.fieldErrors.map((f) => f.field).sort();
    expect(fields(local)).toEqual(["metadata.bad key", "variations.2.details"]);
    expect(fields(remote)).toEqual(fields(local));
    expect(local.constraintViolations).toEqual(remote.constraintViolations);
  });
});
