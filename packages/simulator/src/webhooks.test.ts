import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mainApi, simHttp, startReceiver, textPromotion, waitFor } from "../test/support/api.js";
import { type Simulator, startSimulator } from "./index.js";
import { signWebhook } from "./webhooks.js";

const secrets = ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24="];
let sim: Simulator;
let receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
beforeAll(async () => {
  sim = await startSimulator({
    seed: 41,
    evaluationDelayMs: 50,
    webhookSecrets: secrets,
    webhookRetryDelaysMs: [50, 50],
  });
});
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  await sim.control.reset();
});
afterAll(() => sim.close());

async function receiver(statuses: number[] = []) {
  const r = await startReceiver(statuses);
  receivers.push(r);
  return r;
}

/** Verifies a Standard Webhooks signature independently of the simulator's code. */
function verify(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key)
    .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`)
    .digest("base64");
  return String(headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

async function evaluate(overrides: Record<string, unknown> = {}) {
  const api = mainApi(sim);
  const created = (
    await api.post("/v1/promotions", textPromotion(sim, { metadata: { crm: "42" }, ...overrides }))
  ).body;
  const res = await api.post(`/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluate`);
  return { created, res };
}

describe("Evaluate: 202 with status processing, then the evaluation-completed webhook", () => {
  it("answers 202 and delivers a signed event with issues and the creation metadata", async () => {
    const r = await receiver();
    sim.control.addWebhookEndpoint(r.url);
    const { created, res } = await evaluate();
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      evaluationId: expect.any(String),
      status: "processing",
      correlationId: expect.any(String),
    });
    await waitFor(() => r.received.length === 1);
    const { headers, body } = r.received[0]!;
    expect(headers["webhook-id"]).toMatch(/^msg_/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(10);
    expect(verify(secrets[0]!, headers, body)).toBe(true);
    const event = JSON.parse(body);
    expect(event).toMatchObject({
      type: "evaluation-completed",
      data: {
        evaluationId: res.body.evaluationId,
        promotionId: created.promotionId,
        versionId: created.versionId,
        status: "completed",
        metadata: { crm: "42" },
      },
    });
    expect(Date.parse(event.timestamp)).not.toBeNaN();
    expect(event.data.issues.length).toBeGreaterThan(0);
    for (const issue of event.data.issues) {
      expect(issue).toMatchObject({
        issueId: expect.any(String),
        commentId: expect.any(String),
        category: expect.any(String),
      });
      expect(["high", "medium", "low"]).toContain(issue.severity);
    }
    await waitFor(() => sim.control.webhookDeliveries()[0]?.status === "delivered");
    expect(sim.control.evaluations()[0]!.status).toBe("completed");
  });

  it("signs once per secret during rotation, each signature verifiable", async () => {
    const r = await receiver();
    sim.control.addWebhookEndpoint(r.url);
    await evaluate();
    await waitFor(() => r.received.length === 1);
    const { headers, body } = r.received[0]!;
    expect(String(headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of secrets) expect(verify(secret, headers, body)).toBe(true);
    expect(verify("whsec_d3Jvbmc=", headers, body)).toBe(false);
  });

  it("skips the evaluation of a version marked isFinancialPromotion false: status skipped, no issues", async () => {
    const r = await receiver();
    sim.control.addWebhookEndpoint(r.url);
    await evaluate({ isFinancialPromotion: false });
    await waitFor(() => r.received.length === 1);
    expect(JSON.parse(r.received[0]!.body).data).toMatchObject({ status: "skipped", issues: [] });
  });

  it("answers 404 for an unknown version", async () => {
    const api = mainApi(sim);
    const created = (await api.post("/v1/promotions", textPromotion(sim))).body;
    const res = await api.post(
      `/v1/promotions/${created.promotionId}/versions/00000000-0000-4000-8000-000000000000/evaluate`,
    );
    expect(res.status).toBe(404);
  });
});

describe("Webhook delivery: retried after a failing receiver with the same webhook-id and a fresh signature", () => {
  it("retries on 5xx until delivered", async () => {
    const r = await receiver([500, 503]);
    await simHttp(sim, "POST", "/webhooks/endpoints", { url: r.url });
    await evaluate();
    await waitFor(() => r.received.length === 3);
    const ids = new Set(r.received.map((x) => x.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    for (const x of r.received) expect(verify(secrets[1]!, x.headers, x.body)).toBe(true);
    await waitFor(() => sim.control.webhookDeliveries()[0]?.status === "delivered");
    const [delivery] = (await simHttp(sim, "GET", "/webhooks/deliveries")).body.deliveries;
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
  });

  it("gives up as failed after the schedule when the receiver is unreachable", async () => {
    const r = await receiver();
    await r.close();
    sim.control.addWebhookEndpoint(r.url);
    await evaluate();
    await waitFor(() => sim.control.webhookDeliveries()[0]?.status === "failed");
    const delivery = sim.control.webhookDeliveries()[0]!;
    expect(delivery.attempts).toHaveLength(3);
    expect(delivery.attempts[0]!.error).toBeTruthy();
  });

  it("rejects an endpoint that is not an http(s) URL", async () => {
    expect((await simHttp(sim, "POST", "/webhooks/endpoints", { url: "ftp://x" })).status).toBe(400);
    expect(() => sim.control.addWebhookEndpoint("not a url")).toThrow(/http/);
  });
});

describe("Events: replayed deliveries may omit commentId", () => {
  it("replays as a new message without commentId", async () => {
    const r = await receiver();
    sim.control.addWebhookEndpoint(r.url);
    await evaluate();
    await waitFor(() => r.received.length === 1);
    const original = sim.control.webhookDeliveries()[0]!;
    const replay = await simHttp(sim, "POST", "/webhooks/replay", { deliveryId: original.deliveryId });
    expect(replay.status).toBe(201);
    expect(replay.body.replayOf).toBe(original.deliveryId);
    await waitFor(() => r.received.length === 2);
    const second = r.received[1]!;
    expect(second.headers["webhook-id"]).not.toBe(r.received[0]!.headers["webhook-id"]);
    expect(verify(secrets[0]!, second.headers, second.body)).toBe(true);
    const issues = JSON.parse(second.body).data.issues;
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue).not.toHaveProperty("commentId");
    expect((await simHttp(sim, "POST", "/webhooks/replay", { deliveryId: "dlv_nope" })).status).toBe(404);
  });

  it("lists endpoints and deliveries over HTTP", async () => {
    const r = await receiver();
    sim.control.addWebhookEndpoint(r.url);
    const res = await simHttp(sim, "GET", "/webhooks/endpoints");
    expect(res.body.endpoints).toEqual([{ endpointId: expect.stringMatching(/^ep_/), url: r.url }]);
    expect(res.body.deliveries).toEqual([]);
  });
});

describe("Webhook signing: v1,<base64 HMAC-SHA256(key, id.timestamp.body)> per secret", () => {
  it("matches an independent computation", () => {
    const sig = signWebhook([secrets[0]!], "msg_1", 1700000000, '{"a":1}');
    expect(
      verify(
        secrets[0]!,
        { "webhook-id": "msg_1", "webhook-timestamp": 1700000000, "webhook-signature": sig },
        '{"a":1}',
      ),
    ).toBe(true);
  });

  it("generates one whsec_ secret by default", async () => {
    const other = await startSimulator({ webhookUrls: ["http://127.0.0.1:9/unused"] });
    try {
      expect(other.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      expect(other.webhookSecrets).toEqual([other.webhookSecret]);
      expect(other.control.webhookEndpoints()).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe("Evaluation read (gap: not shown; the polling fallback): status and issues of one evaluation", () => {
  it("answers processing while the evaluation runs", async () => {
    // The evaluation outlasts the test's own timeout, so the read sees it unfinished however slow the machine.
    await sim.control.setDelays({ evaluationDelayMs: 600_000 });
    try {
      const { created, res } = await evaluate();
      const path = `/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluations/${res.body.evaluationId}`;
      const first = await mainApi(sim).get(path);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        evaluationId: res.body.evaluationId,
        status: "processing",
        issues: [],
      });
    } finally {
      await sim.control.setDelays({ evaluationDelayMs: 50 });
    }
  });

  it("answers the finished result; 404 for an id of another version", async () => {
    const { created, res } = await evaluate();
    const path = `/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluations/${res.body.evaluationId}`;
    const api = mainApi(sim);
    await waitFor(async () => (await api.get(path)).body.status === "completed");
    const done = await api.get(path);
    expect(done.body.issues.length).toBeGreaterThan(0);
    expect(done.body.correlationId).toEqual(expect.any(String));
    const other = await api.post("/v1/promotions", textPromotion(sim));
    const wrong = await api.get(
      `/v1/promotions/${other.body.promotionId}/versions/${other.body.versionId}/evaluations/${res.body.evaluationId}`,
    );
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe("NOT_FOUND");
  });
});

describe("Events: a comment reply briefly answers PARENT_NOT_FOUND (comment indexing is asynchronous)", () => {
  it("refuses a reply until the comment is indexed, then creates it; unknown parents stay not found", async () => {
    await sim.control.setDelays({ commentIndexDelayMs: 300 });
    const { res } = await evaluate();
    await waitFor(() =>
      sim.control
        .evaluations()
        .some((e) => e.evaluationId === res.body.evaluationId && e.status === "completed"),
    );
    const evaluation = sim.control.evaluations().find((e) => e.evaluationId === res.body.evaluationId)!;
    const commentId = evaluation.issues[0]!.commentId!;
    const api = mainApi(sim);
    const early = await api.post("/v1/comments", { parentCommentId: commentId, content: "Fixed" });
    expect(early.status).toBe(404);
    expect(early.body.error.code).toBe("PARENT_NOT_FOUND");
    await waitFor(
      async () =>
        (await api.post("/v1/comments", { parentCommentId: commentId, content: "Fixed" })).status === 201,
    );
    const unknown = await api.post("/v1/comments", { parentCommentId: "not-a-comment" });
    expect(unknown.body.error.code).toBe("PARENT_NOT_FOUND");
    const missing = await api.post("/v1/comments", { content: "no parent" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].field).toBe("parentCommentId");
  });
});
