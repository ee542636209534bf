import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import {
  initiate,
  mainApi,
  putChunk,
  simHttp,
  textPromotion,
  uploadCompleted,
  waitFor,
} from "../test/support/api.js";
import { sampleTextPromotion, startSimulator } from "./index.js";
import { Problems } from "./problems.js";
import { checkMetadata, checkTags, isCalendarDate } from "./promotion-rules.js";

// A large budget: this file makes far more than 60 calls and is not about rate limits.
// Long enough that a creation right after the last byte always meets "not ready", however loaded.
const sim = useSimulator(startSimulator, { seed: 31, uploadProcessingDelayMs: 1_000, mainApiLimit: 100_000 });
let api: ReturnType<typeof mainApi>;
beforeAll(() => {
  api = mainApi(sim());
});

const fields = (res: { body: { error: { details: { field?: string }[] } } }) =>
  res.body.error.details.flatMap((d) => (d.field ? [d.field] : []));
const create = (overrides: Record<string, unknown> = {}) =>
  api.post("/v1/promotions", textPromotion(sim(), overrides));
const variation = (i: number) => ({ content: `variation ${i}` });

describe("Reference data: channels, jurisdictions, products, target markets", () => {
  it("lists each with ids and names (jurisdictions with countryCode)", async () => {
    const channels = await api.get("/v1/channels");
    expect(channels.status).toBe(200);
    expect(channels.body.channels).toEqual(sim().reference.channels);
    const jurisdictions = await api.get("/v1/jurisdictions");
    expect(jurisdictions.body.jurisdictions[0]).toEqual({
      id: expect.any(String),
      name: "United Kingdom",
      countryCode: "GB",
    });
    expect((await api.get("/v1/products")).body.products).toEqual(sim().reference.products);
    expect((await api.get("/v1/target-markets")).body.targetMarkets).toEqual(sim().reference.targetMarkets);
  });
});

describe("Creation: required fields and the 201 response", () => {
  it("creates a promotion with version 1, a public id and echoed metadata and tags", async () => {
    const res = await create({ metadata: { campaign: "spring-25" }, tags: ["spring"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      promotionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      versionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      publicId: expect.stringMatching(/^PR-\d{6}$/),
      metadata: { campaign: "spring-25" },
      tags: ["spring"],
      correlationId: expect.any(String),
    });
  });

  it("requires promotionName, productIds, channelIds and jurisdictionId, naming each field", async () => {
    const res = await api.post("/v1/promotions", { fileFormat: "text", content: "x" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(fields(res)).toEqual(["promotionName", "productIds", "channelIds", "jurisdictionId"]);
    const empty = await create({ productIds: [], channelIds: [] });
    expect(empty.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "min_items",
      limit: 1,
      actual: 0,
    });
  });

  it("rejects ids that are not UUIDs or not in the reference data", async () => {
    const res = await create({
      productIds: ["nope", "00000000-0000-4000-8000-000000000000"],
      channelIds: "x",
      jurisdictionId: "00000000-0000-4000-8000-000000000000",
      targetMarketIds: ["00000000-0000-4000-8000-000000000000"],
      linkedClaimIds: ["bad"],
    });
    expect(fields(res)).toEqual([
      "productIds.0",
      "productIds.1",
      "channelIds",
      "jurisdictionId",
      "linkedClaimIds.0",
      "targetMarketIds.0",
    ]);
  });

  it("checks dates, booleans, the promotion type and strings; ignores unknown fields", async () => {
    const res = await create({
      deadline: "2025-02-30",
      nextReviewDate: "2025-01-01",
      paidPromotion: "yes",
      promotionType: "poster",
      caption: 5,
    });
    expect(fields(res)).toEqual(["deadline", "nextReviewDate", "paidPromotion", "promotionType", "caption"]);
    const ok = await create({
      deadline: "2025-12-31",
      nextReviewDate: "2025-06-01T09:00:00+01:00",
      paidPromotion: true,
      evergreen: false,
      promotionType: "single",
      somethingNew: { nested: true },
    });
    expect(ok.status).toBe(201);
    expect((await create({ deadline: "2025-12-31T10:00:00Z" })).status).toBe(201);
  });

  it("knows calendar dates (property)", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-01"), max: new Date("9999-12-31"), noInvalidDate: true }),
        (d) => {
          expect(isCalendarDate(d.toISOString().slice(0, 10))).toBe(true);
        },
      ),
    );
  });
});

describe("Behaviour 1: text takes content and no uploadIds; every other format takes uploadIds and no content", () => {
  it("requires content for text, and rejects uploadIds with it", async () => {
    expect(fields(await create({ content: undefined }))).toEqual(["content"]);
    expect(fields(await create({ uploadIds: [sim().reference.products[0]!.id] }))).toEqual(["uploadIds"]);
  });

  it("requires uploadIds for file formats, and rejects content with them", async () => {
    const uploadId = await uploadCompleted(sim());
    for (const fileFormat of ["pdf", "image", "video", "audio", "document"]) {
      expect(fields(await create({ fileFormat, content: undefined }))).toEqual(["uploadIds"]);
      expect(fields(await create({ fileFormat, uploadIds: [uploadId] }))).toEqual(["content"]);
      expect((await create({ fileFormat, uploadIds: [uploadId], content: undefined })).status).toBe(201);
    }
    expect(fields(await create({ fileFormat: "gif" }))).toEqual(["fileFormat"]);
  });

  it("rejects an upload id that does not exist, naming its position", async () => {
    const uploadId = await uploadCompleted(sim());
    const res = await create({
      fileFormat: "pdf",
      content: undefined,
      uploadIds: [uploadId, "00000000-0000-4000-8000-000000000000"],
    });
    expect(res.status).toBe(400);
    expect(fields(res)).toEqual(["uploadIds.1"]);
  });
});

describe("Creation with an upload not yet finished: 409 with upload_not_ready, retry after a short delay", () => {
  it("answers 409 per unfinished upload, then 201 once processing is over", async () => {
    const a = (await initiate(sim(), 4)).body.uploadId;
    const b = (await initiate(sim(), 4)).body.uploadId;
    await putChunk(sim(), a, "bytes 0-3/4", Buffer.from("%PDF"));
    const body = { fileFormat: "pdf", content: undefined, uploadIds: [a, b] };
    const res = await create(body);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("CONFLICT");
    expect(res.body.error.details).toEqual([
      { type: "upload_not_ready", uploadId: a },
      { type: "upload_not_ready", uploadId: b },
    ]);
    await putChunk(sim(), b, "bytes 0-3/4", Buffer.from("%PDF"));
    expect((await create(body)).status).toBe(409);
    await waitFor(async () => (await create(body)).status === 201);
  });
});

describe("Behaviour 2: variations (2 to 20) exclude top-level uploadIds, content and fileFormat", () => {
  const withVariations = (variations: unknown[], extra: Record<string, unknown> = {}) =>
    create({ fileFormat: undefined, content: undefined, variations, ...extra });

  it("accepts 2 and 20 entries", async () => {
    expect((await withVariations([variation(1), variation(2)])).status).toBe(201);
    expect((await withVariations(Array.from({ length: 20 }, (_, i) => variation(i)))).status).toBe(201);
  });

  it("rejects 1 and 21 entries with min_items / max_items", async () => {
    const one = await withVariations([variation(1)]);
    expect(one.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "min_items",
      limit: 2,
      actual: 1,
    });
    const many = await withVariations(Array.from({ length: 21 }, (_, i) => variation(i)));
    expect(many.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_items",
      limit: 20,
      actual: 21,
    });
    expect(fields(await withVariations("x" as unknown as unknown[]))).toEqual(["variations"]);
  });

  it("rejects top-level uploadIds, content and fileFormat alongside variations", async () => {
    const res = await withVariations([variation(1), variation(2)], {
      fileFormat: "text",
      content: "x",
      uploadIds: [],
    });
    expect(fields(res).sort()).toEqual(["content", "fileFormat", "uploadIds"]);
  });

  it("checks each entry: exactly one of uploadId and content, known ids, details length", async () => {
    const uploadId = await uploadCompleted(sim());
    const res = await withVariations([
      { uploadId, content: "both" },
      {},
      "x",
      { uploadId: "00000000-0000-4000-8000-000000000000" },
      { content: "ok", details: "d".repeat(1501), channelIds: ["bad"], jurisdictionId: "bad" },
    ]);
    expect(fields(res)).toEqual([
      "variations.0",
      "variations.1",
      "variations.2",
      "variations.4.channelIds.0",
      "variations.4.jurisdictionId",
      "variations.4.details",
      "variations.3.uploadId",
    ]);
    expect(
      (
        await withVariations([
          { uploadId },
          { content: "c", jurisdictionId: sim().reference.jurisdictions[1]!.id },
        ])
      ).status,
    ).toBe(201);
  });
});

describe("Behaviour 3 and limits: details at most 1500 characters, with the field path and the permitted length", () => {
  it("accepts 1500 and rejects 1501 at top level", async () => {
    expect((await create({ details: "d".repeat(1500) })).status).toBe(201);
    const res = await create({ details: "d".repeat(1501) });
    expect(res.body.error.details).toEqual([
      { type: "field_error", field: "details", message: "must be at most 1500 characters" },
      { type: "constraint_violation", constraint: "max_length", limit: 1500, actual: 1501 },
    ]);
  });

  it("names variations.2.details for a variation", async () => {
    const variations = [variation(0), variation(1), { content: "c", details: "d".repeat(1600) }];
    const res = await create({ fileFormat: undefined, content: undefined, variations });
    expect(fields(res)).toEqual(["variations.2.details"]);
    expect(res.body.error.details[1]).toEqual({
      type: "constraint_violation",
      constraint: "max_length",
      limit: 1500,
      actual: 1600,
    });
  });
});

describe("Tag rules: at most 20, each at most 255, trimmed, duplicates ignored, Var- and TESTING reserved", () => {
  it("attaches trimmed tags once each", async () => {
    const res = await create({ tags: [" spring ", "spring", "isa", "isa "] });
    expect(res.body.tags).toEqual(["spring", "isa"]);
  });

  it("rejects reserved, over-long, empty and non-string tags by position", async () => {
    const res = await create({ tags: ["Var-1", "TESTING", "t".repeat(256), "  ", 7, "ok", "t".repeat(255)] });
    expect(fields(res)).toEqual(["tags.0", "tags.1", "tags.2", "tags.3", "tags.4"]);
    expect(res.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_length",
      limit: 255,
      actual: 256,
    });
    expect(fields(await create({ tags: "x" }))).toEqual(["tags"]);
  });

  it("rejects more than 20 tags", async () => {
    const res = await create({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) });
    expect(res.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_items",
      limit: 20,
      actual: 21,
    });
    expect((await create({ tags: Array.from({ length: 20 }, (_, i) => `t${i}`) })).status).toBe(201);
  });

  it("holds for any list of tags (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 25 }), (tags) => {
        const problems = new Problems();
        const attached = checkTags(problems, tags);
        const trimmed = tags.map((t) => t.trim());
        const bad = trimmed.some(
          (t) => t === "" || t.length > 255 || t.startsWith("Var-") || t === "TESTING",
        );
        expect(problems.details.length > 0).toBe(bad || tags.length > 20);
        if (!bad) expect(attached).toEqual([...new Set(trimmed)]);
      }),
    );
  });
});

describe("Metadata: at most 20 keys, keys [A-Za-z0-9_-] up to 128, string values up to 1024", () => {
  it("rejects bad keys, values and counts, naming metadata.<key>", async () => {
    const res = await create({
      metadata: { "bad key": "v", ok: 5, long: "v".repeat(1025), ["k".repeat(129)]: "v" },
    });
    expect(fields(res)).toEqual([
      "metadata.bad key",
      "metadata.ok",
      "metadata.long",
      `metadata.${"k".repeat(129)}`,
    ]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"]));
    expect((await create({ metadata: many })).body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_keys",
      limit: 20,
      actual: 21,
    });
    expect(fields(await create({ metadata: ["x"] }))).toEqual(["metadata"]);
  });

  it("accepts keys and values at their limits (property)", () => {
    const key = fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/);
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ maxLength: 1024 }), { maxKeys: 20 }), (metadata) => {
        const problems = new Problems();
        expect(checkMetadata(problems, metadata)).toEqual(metadata);
        expect(problems.details).toEqual([]);
      }),
    );
  });
});

describe("Versioning 2: versions numbered from 1, one more per new version; new versions obey the details limit", () => {
  it("numbers API versions 2, 3 and rejects over-long details", async () => {
    const { promotionId } = (await create()).body;
    const v2 = await api.post(`/v1/promotions/${promotionId}/versions`, {
      fileFormat: "text",
      content: "v2",
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toEqual({ versionId: expect.any(String), version: 2, correlationId: expect.any(String) });
    const bad = await api.post(`/v1/promotions/${promotionId}/versions`, {
      fileFormat: "text",
      content: "v",
      details: "d".repeat(1501),
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(["details"]);
    const v3 = await api.post(`/v1/promotions/${promotionId}/versions`, {
      fileFormat: "pdf",
      uploadIds: [await uploadCompleted(sim())],
    });
    expect(v3.body.version).toBe(3);
    expect((await api.get(`/v1/promotions/${promotionId}`)).body).toMatchObject({
      latestVersion: 3,
      versionCount: 3,
    });
  });

  it("answers 404 for an unknown promotion and 400 for a malformed id", async () => {
    const unknown = await api.post("/v1/promotions/00000000-0000-4000-8000-000000000000/versions", {
      fileFormat: "text",
      content: "x",
    });
    expect(unknown.status).toBe(404);
    expect((await api.get("/v1/promotions/00000000-0000-4000-8000-000000000000")).body.error.code).toBe(
      "NOT_FOUND",
    );
    const malformed = await api.get("/v1/promotions/not-a-uuid");
    expect(malformed.status).toBe(400);
    expect(fields(malformed)).toEqual(["promotionId"]);
  });
});

describe("Promotion read view: latestVersionId is the highest version, whether from the API or the web application", () => {
  it("makes a web-app version the latest", async () => {
    const created = (await create()).body;
    let view = await api.get(`/v1/promotions/${created.promotionId}`);
    expect(view.body).toEqual({
      promotionId: created.promotionId,
      latestVersionId: created.versionId,
      latestVersion: 1,
      status: "none",
      versionCount: 1,
      correlationId: expect.any(String),
    });
    const web = await simHttp(sim(), "POST", `/promotions/${created.promotionId}/web-app-versions`, {});
    expect(web.status).toBe(201);
    expect(web.body.version).toBe(2);
    view = await api.get(`/v1/promotions/${created.promotionId}`);
    expect(view.body).toMatchObject({
      latestVersionId: web.body.versionId,
      latestVersion: 2,
      versionCount: 2,
    });
    expect(sim().control.addWebAppVersion(created.promotionId).version).toBe(3);
  });
});

describe("Submit: a saved version becomes pending; submitting again returns the current status (safe retry)", () => {
  it("moves none -> pending, then returns the current status whatever the body says", async () => {
    const { promotionId, versionId } = (await create()).body;
    const path = `/v1/promotions/${promotionId}/versions/${versionId}`;
    expect((await api.get(`${path}/decision`)).body.decision).toBe("none");
    const first = await api.post(`${path}/submit`, {
      reviewerEmail: "rev@example.com",
      deadline: "2025-10-01",
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: "pending", correlationId: expect.any(String) });
    expect((await api.post(`${path}/submit`)).body.status).toBe("pending");
    sim().control.setDecision(promotionId, versionId, { decision: "approved" });
    expect((await api.post(`${path}/submit`, { reviewerEmail: "other@example.com" })).body.status).toBe(
      "approved",
    );
    expect((await api.get(`/v1/promotions/${promotionId}`)).body.status).toBe("approved");
  });

  it("validates reviewerEmail and deadline", async () => {
    const { promotionId, versionId } = (await create()).body;
    const res = await api.post(`/v1/promotions/${promotionId}/versions/${versionId}/submit`, {
      reviewerEmail: "x",
      deadline: "soon",
    });
    expect(fields(res)).toEqual(["reviewerEmail", "deadline"]);
  });
});

describe("Behaviour 4: the decision call works on any version id of the promotion", () => {
  it("reads and records decisions per version; who and when only for final decisions", async () => {
    const { promotionId, versionId } = (await create()).body;
    const v2 = sim().control.addWebAppVersion(promotionId);
    const decision = await simHttp(
      sim(),
      "POST",
      `/promotions/${promotionId}/versions/${versionId}/decision`,
      {
        decision: "changes_requested",
        rationale: "Add the risk warning",
        decidedByUserId: "reviewer-7",
      },
    );
    expect(decision.status).toBe(200);
    const first = await api.get(`/v1/promotions/${promotionId}/versions/${versionId}/decision`);
    expect(first.body).toEqual({
      decision: "changes_requested",
      rationale: "Add the risk warning",
      decidedByUserId: "reviewer-7",
      decidedAt: expect.any(String),
      correlationId: expect.any(String),
    });
    expect(
      (await api.get(`/v1/promotions/${promotionId}/versions/${v2.versionId}/decision`)).body.decision,
    ).toBe("none");
    sim().control.setDecision(promotionId, versionId, { decision: "in_review" });
    const review = await api.get(`/v1/promotions/${promotionId}/versions/${versionId}/decision`);
    expect(review.body).toEqual({ decision: "in_review", correlationId: expect.any(String) });
  });

  it("answers 404 for an unknown version, and rejects bad decisions on the control surface", async () => {
    const { promotionId, versionId } = (await create()).body;
    const res = await api.get(
      `/v1/promotions/${promotionId}/versions/00000000-0000-4000-8000-000000000000/decision`,
    );
    expect(res.status).toBe(404);
    const bad = await simHttp(sim(), "POST", `/promotions/${promotionId}/versions/${versionId}/decision`, {
      decision: "maybe",
      rationale: 1,
    });
    expect(bad.status).toBe(400);
  });
});

describe("Promotion status: expired (promotion level only) until a new version", () => {
  it("shows expired after the control call and clears with a new version", async () => {
    const { promotionId } = (await create()).body;
    const expired = await simHttp(sim(), "POST", `/promotions/${promotionId}/expire`);
    expect(expired.body.status).toBe("expired");
    expect((await api.get(`/v1/promotions/${promotionId}`)).body.status).toBe("expired");
    sim().control.addWebAppVersion(promotionId, { isFinancialPromotion: false });
    expect((await api.get(`/v1/promotions/${promotionId}`)).body.status).toBe("none");
  });
});

describe("The exported sample: the smallest valid text promotion, from the seeded reference data", () => {
  it("is accepted as is and with overrides", async () => {
    expect((await api.post("/v1/promotions", sampleTextPromotion(sim().reference))).status).toBe(201);
    const res = await api.post("/v1/promotions", sampleTextPromotion(sim().reference, { tags: ["spring"] }));
    expect(res.body.tags).toEqual(["spring"]);
  });
});

describe("Metadata keys that name Object.prototype members are ordinary data", () => {
  it("stores and echoes __proto__, constructor and prototype as keys", async () => {
    const metadata = JSON.parse('{"__proto__":"a","constructor":"b","prototype":"c"}') as Record<
      string,
      string
    >;
    const res = await api.post("/v1/promotions", sampleTextPromotion(sim().reference, { metadata }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.metadata)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(res.body.metadata.constructor).toBe("b");
  });
});
