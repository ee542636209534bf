import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  call,
  initiate,
  mainApi,
  mainHeaders,
  putChunk,
  startReceiver,
  textPromotion,
  uploadCompleted,
  waitFor,
} from "../test/support/api.js";
import { type Simulator, signWebhook, startSimulator } from "./index.js";
import { GAP_POINTS, resolveProfile, variantOf } from "./profile.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("a profile seed picks one reading per docs/gaps.md row", () => {
  it("has 25 rows, each with at least two readings besides the default", () => {
    expect(GAP_POINTS.map((p) => p.row)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    for (const point of GAP_POINTS) expect(Object.keys(point.variants).length).toBeGreaterThanOrEqual(2);
  });
  it("0 (or none) is the default reading everywhere; a negative or fractional seed is refused", () => {
    expect(resolveProfile().choices.every((c) => c.variant === "default")).toBe(true);
    expect(resolveProfile(0).seed).toBe(0);
    expect(() => resolveProfile(-1)).toThrow(RangeError);
    expect(() => resolveProfile(1.5)).toThrow(RangeError);
    expect(variantOf(resolveProfile(3), 99)).toBe("default");
  });
  it("is deterministic, and seeds 1..8 are eight combinations taking every reading of every row", () => {
    expect(resolveProfile(5)).toEqual(resolveProfile(5));
    const combos = new Set<string>();
    const taken = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) {
      const choices = resolveProfile(seed).choices;
      combos.add(choices.map((c) => c.variant).join());
      for (const c of choices) taken.add(`${c.row}:${c.variant}`);
    }
    expect(combos.size).toBe(8);
    const all = GAP_POINTS.flatMap((p) => Object.keys(p.variants).map((v) => `${p.row}:${v}`));
    expect([...taken].sort()).toEqual(all.sort());
  });
});

// Profiles 1 and 8 are complements: between them they take every reading of every row.
describe.each([1, 8])("profile %i answers with its readings, within what the spec states", (seed) => {
  let sim: Simulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const reads = (row: number) => variantOf(sim.profile, row);
  beforeAll(async () => {
    receiver = await startReceiver();
    sim = await startSimulator({
      profile: seed,
      evaluationDelayMs: 10,
      commentIndexDelayMs: 0,
      uploadProcessingDelayMs: 5,
      linkImportDelayMs: 400,
      webhookUrls: [receiver.url],
      webhookRetryDelaysMs: [],
    });
  });
  afterAll(async () => {
    await sim.close();
    await receiver.close();
  });
  beforeEach(async () => {
    await sim.control.reset();
    receiver.received.length = 0;
  });

  it("exposes the profile; keys take the reading of row 17", () => {
    expect(sim.profile.seed).toBe(seed);
    expect(sim.profile.choices).toHaveLength(25);
    if (reads(17) === "sk-keys") expect(sim.apiKey).toMatch(/^sk_live_[0-9a-f]{32}$/);
    else expect(sim.apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("creation: rows 1, 2, 3, 24 and 25", async () => {
    const api = mainApi(sim);
    const body = textPromotion(sim, { metadata: { a: "b" }, tags: ["x"] });
    const { jurisdictionId: _omitted, ...withoutJurisdiction } = body;
    const created = await api.post("/v1/promotions", { ...withoutJurisdiction, promotionType: "nonsense" });
    const typeChecked = reads(1) === "default";
    const jurisdictionNeeded = reads(2) !== "jurisdiction-optional";
    expect(created.status).toBe(typeChecked || jurisdictionNeeded ? 400 : 201);
    const ok = await api.post("/v1/promotions", body);
    expect(ok.status).toBe(201);
    expect(ok.body.promotionId).toMatch(UUID);
    expect(ok.body.correlationId).toMatch(UUID);
    if (reads(3) === "minimal")
      expect(Object.keys(ok.body).sort()).toEqual(
        expect.arrayContaining(["promotionId", "versionId", "version", "correlationId"]),
      );
    if (reads(3) === "minimal") expect(ok.body.tags).toBeUndefined();
    else expect(ok.body).toMatchObject({ tags: ["x"], metadata: { a: "b" } });
    expect(ok.body.publicId).toBeUndefined();
    if (reads(1) === "named-type") {
      expect((await api.post("/v1/promotions", { ...body, type: "nonsense" })).status).toBe(400);
    }
    const unknownProduct = await api.post("/v1/promotions", { ...body, productIds: [crypto.randomUUID()] });
    expect(unknownProduct.status).toBe(reads(2) === "ids-unchecked" ? 201 : 400);
    if (reads(25) === "api-version-field") expect(ok.body.apiVersion).toBe("1.0.0");
    else expect(ok.headers.get("deprecation")).toBe("false");
    const limit = reads(24) === "max-10" ? 10 : 50;
    const uploadIds = Array.from({ length: limit + 1 }, () => crypto.randomUUID());
    const many = await api.post("/v1/promotions", {
      ...body,
      fileFormat: "pdf",
      content: undefined,
      uploadIds,
    });
    expect(many.body.error.details).toContainEqual({
      type: "constraint_violation",
      constraint: "max_items",
      limit,
      actual: limit + 1,
    });
  });

  it("versions, submit and decisions: rows 6, 10, 11 and 16", async () => {
    const api = mainApi(sim);
    const { body: created } = await api.post("/v1/promotions", textPromotion(sim));
    const base = `/v1/promotions/${created.promotionId}`;
    const version = await api.post(`${base}/versions`, { content: "v2" });
    if (reads(10) === "format-optional") {
      expect(version.status).toBe(201);
      expect(version.body.promotionId).toBeUndefined();
    } else {
      expect(version.status).toBe(400);
      const full = await api.post(`${base}/versions`, { fileFormat: "text", content: "v2" });
      expect(full.body).toMatchObject({ promotionId: created.promotionId, version: 2 });
      expect(full.body.createdAt).toEqual(expect.any(String));
    }
    const submit = await api.post(`${base}/versions/${created.versionId}/submit`, {
      reviewerEmail: "not an email",
      deadline: "soon",
    });
    expect(submit.status).toBe(reads(16) === "accepted" ? 202 : 201);
    expect(submit.body.status).toBe(reads(6) === "submit-in-review" ? "in_review" : "pending");
    if (reads(11) === "other-names") {
      const refused = await api.post(`${base}/versions/${created.versionId}/submit`, {
        deadlineOverride: "soon",
      });
      expect(refused.body.error.details[0]).toMatchObject({ field: "deadlineOverride" });
    }
    sim.control.setDecision(created.promotionId, created.versionId, {
      decision: "approved",
      rationale: "ok",
    });
    const decision = await api.get(`${base}/versions/${created.versionId}/decision`);
    expect(decision.status).toBe(200);
    if (reads(6) === "decision-minimal") expect(decision.body.rationale).toBeUndefined();
    else expect(decision.body).toMatchObject({ decision: "approved", rationale: "ok" });
  });

  it("reference lists and errors: rows 4, 15, 21 and 22", async () => {
    const api = mainApi(sim);
    const products = await api.get("/v1/products");
    const list = products.body[reads(15)];
    expect(list.map((p: { id: string }) => p.id)).toEqual(sim.reference.products.map((p) => p.id));
    if (reads(15) === "data") expect(products.body.total).toBe(list.length);
    if (reads(4) === "label-not-name")
      expect(list[0]).toEqual({ id: expect.any(String), label: "Current Account", code: "CURRENT_ACCOUNT" });
    else expect(list[0]).toMatchObject({ name: "Current Account", code: "CURRENT_ACCOUNT", active: true });
    const markets = await api.get("/v1/target-markets");
    expect(markets.body[reads(15)]).toHaveLength(sim.reference.targetMarkets.length);
    const channels = await api.get("/v1/channels");
    expect(channels.body.channels).toHaveLength(sim.reference.channels.length);

    const noUser = await call(`${sim.baseUrl}/v1/channels`, {
      headers: { Authorization: `Bearer ${sim.apiKey}` },
    });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.code).toBe(
      reads(22) === "header-validation-error" ? "VALIDATION_ERROR" : "INVALID_REQUEST",
    );
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 2, count: 1 });
    const limited = await api.get("/v1/channels");
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(limited.body.error.details ?? []).toHaveLength(reads(22) === "no-retry-info" ? 0 : 1);
    sim.control.addFault({
      route: "GET /v1/jurisdictions",
      kind: "status",
      code: "UPSTREAM_ERROR",
      count: 1,
    });
    const upstream = await api.get("/v1/jurisdictions");
    expect(upstream.status).toBe(reads(21) === "gateway-503" ? 503 : 504);
  });

  it("uploads: rows 7, 12, 16, 21 and 23", async () => {
    const bytes = new Uint8Array(10).fill(7);
    const init = await initiate(sim, bytes.length);
    expect(init.status).toBe(200);
    const id = init.body.uploadId;
    const first = await putChunk(sim, id, "bytes 0-4/10", bytes.subarray(0, 5));
    if (reads(12) === "no-content") {
      expect(first.status).toBe(204);
    } else {
      expect(first.status).toBe(308);
      expect(first.headers.get("range")).toBe("bytes=0-4");
    }
    expect(first.headers.get("x-correlation-id")).toMatch(UUID);
    const view = await call(`${sim.filesUrl}/v1/uploads/${id}`, { headers: mainHeaders(sim) });
    if (reads(7) === "pending-until-complete") expect(view.body.status).toBe("pending");
    else expect(view.body.receivedBytes).toBeUndefined();
    const conflict = await putChunk(sim, id, "bytes 7-9/10", bytes.subarray(7));
    expect(conflict.status).toBe(reads(21) === "gateway-504" ? 416 : 409);
    expect(conflict.body.error.code).toBe("CONFLICT");
    const last = await putChunk(sim, id, "bytes 5-9/10", bytes.subarray(5));
    expect(last.status).toBe(reads(12) === "no-content" ? 204 : 201);
    sim.control.addFault({ route: "POST /v1/uploads", kind: "status", code: "SERVICE_ERROR", count: 1 });
    expect((await initiate(sim, 1)).status).toBe(reads(21) === "gateway-503" ? 500 : 503);
    const limit = reads(23) === "initiation-100" ? 100 : 300;
    for (let i = 1; i < limit; i++) await initiate(sim, 1);
    const refused = await initiate(sim, 1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("links and frames: rows 8 and 13", async () => {
    const api = mainApi(sim);
    const started = await api.post("/v1/links", { url: "https://drive.google.com/file/d/abc/flyer.pdf" });
    expect(started.status).toBe(202);
    const statusUrl: string = started.body.statusUrl;
    const absolute = reads(8) === "absolute-status-url";
    expect(statusUrl.startsWith(absolute ? `${sim.baseUrl}/v1/links/imports/` : "/v1/links/imports/")).toBe(
      true,
    );
    const url = absolute ? statusUrl : `${sim.baseUrl}${statusUrl}`;
    const poll = await call(url, { headers: mainHeaders(sim) });
    if (!absolute) expect(poll.body.status).toBe("queued");
    let done = poll;
    await waitFor(async () => {
      done = await call(url, { headers: mainHeaders(sim) });
      return done.body.status === "completed";
    });
    expect(done.body.finalUploadId).toMatch(UUID);
    if (!absolute) expect(done.body.fileFormat).toBeUndefined();
    const frames = await api.post("/v1/links/design/frames", { url: "https://www.figma.com/design/KEY/x" });
    if (reads(13) === "without-size")
      expect(frames.body.frames[0]).toEqual({ id: "1:2", name: expect.any(String) });
    else
      expect(frames.body.frames[0]).toMatchObject({
        type: "FRAME",
        page: "Page 1",
        width: expect.any(Number),
      });
  });

  it("evaluations, events and replies: rows 5, 9, 14, 18, 19 and 20", async () => {
    const api = mainApi(sim);
    const { body: created } = await api.post("/v1/promotions", textPromotion(sim, { metadata: { m: "1" } }));
    const base = `/v1/promotions/${created.promotionId}/versions/${created.versionId}`;
    const started = await api.post(`${base}/evaluate`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: "processing", evaluationId: expect.stringMatching(UUID) });
    if (reads(5) === "extra-fields") expect(started.body.versionId).toBe(created.versionId);
    const id = started.body.evaluationId;
    await waitFor(() =>
      sim.control.evaluations().some((e) => e.evaluationId === id && e.status !== "processing"),
    );
    const record = await api.get(`${base}/evaluations/${id}`);
    expect(record.body.status).toBe(reads(9) === "final-succeeded" ? "succeeded" : "completed");
    if (reads(5) === "minimal") expect(record.body.issues).toBeUndefined();
    else expect(record.body.createdAt).toEqual(expect.any(String));
    // The simulator signs and sends every event; what the payload holds is the reading's (row 18).
    await waitFor(() => receiver.received.length >= 2);
    const events = receiver.received.map((r) => ({
      id: String(r.headers["webhook-id"]),
      body: JSON.parse(r.body),
    }));
    for (const r of receiver.received) {
      const id = String(r.headers["webhook-id"]);
      const timestamp = Number(r.headers["webhook-timestamp"]);
      expect(r.headers["webhook-signature"]).toBe(signWebhook(sim.webhookSecrets, id, timestamp, r.body));
    }
    const kinds = events.map((e) => e.body.type);
    expect(kinds).toContain("evaluation-completed");
    expect(kinds).toContain(reads(20));
    for (const e of events) expect(e.id).toMatch(reads(19) === "evt-ids" ? /^evt_[0-9a-f]{24}$/ : UUID);
    const completed = events.find((e) => e.body.type === "evaluation-completed")!.body;
    if (reads(18) === "flat") {
      expect(completed.data).toBeUndefined();
      expect(completed).toMatchObject({ evaluationId: id, metadata: { m: "1" } });
    } else {
      expect(Object.keys(completed.data).sort()).toEqual(["issues", "metadata", "status"]);
      for (const issue of completed.data.issues) expect(Object.keys(issue)).toEqual(["commentId"]);
    }
    const issues = sim.control.evaluations().find((e) => e.evaluationId === id)!.issues;
    const replied = await api.post("/v1/comments", { parentCommentId: issues[0]!.commentId });
    const missing = await api.post("/v1/comments", { parentCommentId: "unknown" });
    if (reads(14) === "reply-200-minimal") {
      expect(replied.status).toBe(200);
      expect(replied.body.parentCommentId).toBeUndefined();
      expect(missing.status).toBe(404);
    } else {
      expect(replied.status).toBe(201);
      expect(missing.status).toBe(409);
    }
    expect(missing.body.error.code).toBe("PARENT_NOT_FOUND");
    const skipped = await api.post("/v1/promotions", textPromotion(sim, { isFinancialPromotion: false }));
    const skippedRun = await api.post(
      `/v1/promotions/${skipped.body.promotionId}/versions/${skipped.body.versionId}/evaluate`,
    );
    await waitFor(() =>
      sim.control
        .evaluations()
        .some((e) => e.evaluationId === skippedRun.body.evaluationId && e.status !== "processing"),
    );
    const final = sim.control.evaluations().find((e) => e.evaluationId === skippedRun.body.evaluationId)!;
    expect(final.status).toBe(reads(9) === "skipped-as-completed" ? "completed" : "skipped");
  });

  it("a replay of a flat or documented-only delivery drops commentId from its issues", async () => {
    const api = mainApi(sim);
    const { body: created } = await api.post("/v1/promotions", textPromotion(sim));
    await api.post(`/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluate`);
    await waitFor(() =>
      sim.control
        .webhookDeliveries()
        .some((d) => d.eventType === "evaluation-completed" && d.status !== "pending"),
    );
    const original = sim.control.webhookDeliveries().find((d) => d.eventType === "evaluation-completed")!;
    const replay = sim.control.replayWebhook(original.deliveryId);
    const payload = replay.payload as { data?: { issues: object[] }; issues?: object[] };
    const issues = payload.data?.issues ?? payload.issues ?? [];
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue).not.toHaveProperty("commentId");
  });
});

describe("profile 0 keeps the simulator's own readings", () => {
  it("answers chunk PUTs 200 with a body, initiation 201, and the documented errors", async () => {
    const sim = await startSimulator({ profile: 0 });
    try {
      const init = await initiate(sim, 4);
      expect(init.status).toBe(201);
      const put = await putChunk(sim, init.body.uploadId, "bytes 0-3/4", new Uint8Array(4));
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ receivedBytes: 4 });
      expect(put.headers.get("deprecation")).toBeNull();
      const id = await uploadCompleted(sim);
      expect(id).toMatch(UUID);
    } finally {
      await sim.close();
    }
  });
});
