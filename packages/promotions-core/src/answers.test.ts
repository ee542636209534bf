import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "../../../testing/fast-check-seed.ts";
import { type LyingAnswer, someUuid, useLyingServer } from "../../../testing/lying-server.ts";
import { createPromotionsClient } from "./promotions.js";

const server = useLyingServer();

const client = () =>
  createPromotionsClient({
    baseUrl: server().url,
    apiKey: "pk_test_answers",
    externalUserId: "user-1",
    retry: false,
  });

const request = {
  promotionName: "Spring",
  productIds: [someUuid()],
  channelIds: [someUuid()],
  fileFormat: "text" as const,
  content: "Hello",
};

/** Answers every request with `answer`, echoing the caller's correlation id as the service does. */
function always(answer: LyingAnswer) {
  server().answer((req) => ({
    ...answer,
    headers: { "x-correlation-id": String(req.headers["x-correlation-id"]), ...answer.headers },
  }));
}

const broken = (operation: string, field: string, correlationId: string) => ({
  name: "UnexpectedResponseError",
  code: "UNEXPECTED_RESPONSE",
  operation,
  field,
  correlationId,
  message: expect.stringContaining(field),
});

const [promotionId, versionId] = [someUuid(), someUuid()];

describe("a creation answer must carry what the spec states: promotionId, versionId (uuids), version (integer)", () => {
  it.each([
    ["null", null, "(body)"],
    ['"hello"', "hello", "(body)"],
    ["an array", [1, 2], "(body)"],
    ["{}", {}, "promotionId"],
    ["a promotionId that is not a uuid", { promotionId: "..", versionId, version: 1 }, "promotionId"],
    ["a missing versionId", { promotionId, version: 1 }, "versionId"],
    ["a version that is a string", { promotionId, versionId, version: "1" }, "version"],
    ["tags that are not strings", { promotionId, versionId, version: 1, tags: [1] }, "tags.0"],
    ["metadata that is an array", { promotionId, versionId, version: 1, metadata: [] }, "metadata"],
  ])(
    "refuses %s as UNEXPECTED_RESPONSE naming the field, the operation and the correlation id",
    async (_, json, field) => {
      always({ status: 201, json });
      const correlationId = someUuid();
      await expect(client().create(request, { correlationId })).rejects.toMatchObject(
        broken("promotions.create", field, correlationId),
      );
    },
  );

  it("says a missing field is required, not what its enclosing object's message says", async () => {
    always({ status: 201, json: { promotionId, version: 1 } });
    const error = await client()
      .create(request)
      .catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", field: "versionId" });
    expect(error.message).toContain("versionId is required");
    // valibot's words for an absent key ("Invalid key: Expected …") are not the SDK's.
    expect(error.message).not.toMatch(/Invalid key|JSON object/);
  });

  it("refuses an empty body", async () => {
    always({ status: 201, text: "" });
    await expect(client().create(request)).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      field: "(body)",
    });
  });

  it("never resolves without a uuid promotionId and versionId and an integer version, whatever the answer", async () => {
    const plausible = fc.record(
      {
        promotionId: fc.oneof(fc.uuid(), fc.string(), fc.integer()),
        versionId: fc.oneof(fc.uuid(), fc.constant("..")),
        version: fc.oneof(fc.integer(), fc.double(), fc.string()),
        tags: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), plausible), async (json) => {
        always({ status: 201, json });
        const outcome = await client()
          .create(request)
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        if ("result" in outcome) {
          expect(outcome.result.promotionId).toMatch(/^[0-9a-f-]{36}$/i);
          expect(outcome.result.versionId).toMatch(/^[0-9a-f-]{36}$/i);
          expect(Number.isSafeInteger(outcome.result.version) && outcome.result.version > 0).toBe(true);
          expect(Array.isArray(outcome.result.tags)).toBe(true);
        } else {
          expect(outcome.error).toMatchObject({
            code: "UNEXPECTED_RESPONSE",
            operation: "promotions.create",
          });
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("tolerant where the spec is silent: optional and unknown fields, any 2xx", () => {
  it("accepts a creation without publicId, tags or metadata, keeps unknown fields, on 200 as on 201", async () => {
    for (const status of [200, 201]) {
      always({ status, json: { promotionId, versionId, version: 1, region: "eu" } });
      const created = await client().create(request);
      expect(created).toMatchObject({
        promotionId,
        versionId,
        version: 1,
        tags: [],
        metadata: {},
        region: "eu",
      });
      expect(created.publicId).toBeUndefined();
    }
  });

  it("accepts a decision without its optional fields, and a submit status outside the review values", async () => {
    always({ json: { decision: "pending" } });
    expect(await client().decision(promotionId, versionId)).toMatchObject({ decision: "pending" });
    always({ status: 202, json: { status: "queued_for_review" } });
    expect(await client().submit(promotionId, versionId)).toMatchObject({ status: "queued_for_review" });
  });

  it("reads an evaluation back without evaluationId (the read endpoint is not shown): status is enough", async () => {
    always({ json: { status: "completed", issues: [] } });
    expect(await client().evaluation(promotionId, versionId, someUuid())).toMatchObject({
      status: "completed",
    });
  });

  it("takes a correlation id that is not a uuid (the service echoes the caller's trace id)", async () => {
    always({ json: { decision: "none", correlationId: "trace-abc" } });
    expect(await client().decision(promotionId, versionId)).toMatchObject({ correlationId: "trace-abc" });
  });
});

describe("every other answer is checked for its stated fields and closed enums", () => {
  const view = {
    promotionId,
    latestVersionId: versionId,
    latestVersion: 2,
    status: "pending",
    versionCount: 2,
  };

  it.each([
    ["get", { ...view, status: "archived" }, "status"],
    ["get", { ...view, latestVersion: 0 }, "latestVersion"],
    ["get", { ...view, versionCount: "2" }, "versionCount"],
    ["get", { ...view, latestVersionId: "../../admin" }, "latestVersionId"],
    ["decision", { decision: "expired" }, "decision"],
    ["decision", { decision: "approved", decidedAt: 5 }, "decidedAt"],
    ["evaluate", { evaluationId: someUuid(), status: "completed" }, "status"],
    ["evaluate", { evaluationId: "ev-1", status: "processing" }, "evaluationId"],
    ["createVersion", { versionId, version: 1.5 }, "version"],
    ["submit", {}, "status"],
    ["evaluation", { evaluationId: "ev-1", status: "completed" }, "evaluationId"],
    ["evaluation", { evaluationId: someUuid() }, "status"],
  ] as const)("%s answered with a broken %s", async (operation, json, field) => {
    always({ json });
    const c = client();
    const correlationId = someUuid();
    const op = { correlationId };
    const calls = {
      get: () => c.get(promotionId, op),
      decision: () => c.decision(promotionId, versionId, op),
      evaluate: () => c.evaluate(promotionId, versionId, op),
      createVersion: () => c.createVersion(promotionId, { fileFormat: "text", content: "v2" }, op),
      submit: () => c.submit(promotionId, versionId, {}, op),
      evaluation: () => c.evaluation(promotionId, versionId, someUuid(), op),
    };
    await expect(calls[operation]()).rejects.toMatchObject(
      broken(`promotions.${operation}`, field, correlationId),
    );
  });

  it("reads the latest version only from a valid read view: a bad latestVersionId sends nothing further", async () => {
    always({ json: { ...view, latestVersionId: ".." } });
    await expect(client().decisionOfLatest(promotionId)).rejects.toMatchObject({ field: "latestVersionId" });
    expect(server().seen.map((r) => r.url)).toEqual([`/v1/promotions/${promotionId}`]);
  });
});

describe("every caller id that goes into a path is a uuid first: nothing is sent otherwise", () => {
  it.each([
    ["get", (c: ReturnType<typeof client>) => c.get("..")],
    [
      "createVersion",
      (c: ReturnType<typeof client>) => c.createVersion("../x", { fileFormat: "text", content: "x" }),
    ],
    ["submit", (c: ReturnType<typeof client>) => c.submit(promotionId, "..")],
    ["decision", (c: ReturnType<typeof client>) => c.decision("", versionId)],
    ["evaluate", (c: ReturnType<typeof client>) => c.evaluate(promotionId, "%2e%2e")],
  ])("%s refuses a bad id locally", async (_, call) => {
    await expect(call(client())).rejects.toMatchObject({ code: "VALIDATION_ERROR", local: true });
    expect(server().seen).toHaveLength(0);
  });
});

describe("an upload id the service names in a 409 upload_not_ready is a uuid before anything is sent for it", () => {
  it("refuses `..` as UNEXPECTED_RESPONSE: no wait, no status read, no resend", async () => {
    always({
      status: 409,
      json: {
        error: {
          code: "CONFLICT",
          message: "not ready",
          details: [{ type: "upload_not_ready", uploadId: ".." }],
        },
      },
    });
    const waited: string[][] = [];
    const c = createPromotionsClient({
      baseUrl: server().url,
      apiKey: "pk_test_answers",
      externalUserId: "user-1",
      waitForUploads: async (ids) => {
        waited.push(ids);
      },
    });
    const body = { ...request, fileFormat: "pdf" as const, content: undefined, uploadIds: [someUuid()] };
    await expect(c.create(body)).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: "promotions.create",
      field: "error.details.upload_not_ready.0.uploadId",
    });
    expect(waited).toEqual([]);
    expect(server().seen).toHaveLength(1);
  });
});
