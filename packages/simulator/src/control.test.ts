import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  initiate,
  mainApi,
  mainHeaders,
  putChunk,
  simHttp,
  startReceiver,
  textPromotion,
  waitFor,
} from "../test/support/api.js";
import { type Simulator, startSimulator } from "./index.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 71, mainApiLimit: 3 });
});
afterAll(() => sim.close());

describe("Control: the request log, with secrets redacted", () => {
  it("records method, path, query, headers, status and time; never the key", async () => {
    await sim.control.reset();
    await call(`${sim.baseUrl}/v1/channels?page=2&sig=secret`, {
      headers: mainHeaders(sim, { Cookie: "a=b", "X-Note": sim.keys.revokedKey }),
    });
    await initiate(sim, 5);
    const { requests } = (await simHttp(sim, "GET", "/requests")).body;
    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(first).toMatchObject({
      service: "main",
      method: "GET",
      path: "/v1/channels",
      query: { page: "2", sig: "[REDACTED]" },
      status: 200,
      correlationId: expect.any(String),
      time: expect.any(String),
    });
    expect(first.headers.authorization).toBe("Bearer [REDACTED]");
    expect(first.headers.cookie).toBe("[REDACTED]");
    expect(first.headers["x-note"]).toBe("[REDACTED]");
    expect(first.headers["x-external-user-id"]).toBe(sim.externalUserId);
    expect(second).toMatchObject({ service: "files", method: "POST", path: "/v1/uploads", status: 201 });
    expect(JSON.stringify(requests)).not.toContain(sim.apiKey);
  });
});

describe("Control: reset returns the simulator to its starting point", () => {
  it("forgets promotions, uploads, faults, the budget and the log; keeps keys and reference data", async () => {
    await simHttp(sim, "POST", "/reset");
    const api = mainApi(sim);
    const created = (await api.post("/v1/promotions", textPromotion(sim))).body;
    const { uploadId } = (await initiate(sim, 5)).body;
    sim.control.addFault({ route: "GET /v1/never", kind: "slow" });
    await api.get("/v1/channels");
    await api.get("/v1/channels");
    expect((await api.get("/v1/channels")).status).toBe(429);
    const reset = await simHttp(sim, "POST", "/reset");
    expect(reset.body.reset).toBe(true);
    expect(sim.control.faults()).toEqual([]);
    expect(sim.control.requests()).toEqual([]);
    expect((await api.get(`/v1/promotions/${created.promotionId}`)).status).toBe(404);
    expect((await simHttp(sim, "GET", `/uploads/${uploadId}`)).status).toBe(404);
    expect((await api.get("/v1/channels")).body.channels).toEqual(sim.reference.channels);
  });
});

describe("Control: processing delays", () => {
  it("reads and changes delays, which apply to uploads finished afterwards", async () => {
    await sim.control.reset();
    expect((await simHttp(sim, "GET", "/delays")).body).toMatchObject({
      uploadProcessingDelayMs: 200,
      linkImportDelayMs: 200,
      evaluationDelayMs: 200,
    });
    const changed = await simHttp(sim, "POST", "/delays", { uploadProcessingDelayMs: 0 });
    expect(changed.body.uploadProcessingDelayMs).toBe(0);
    const { uploadId } = (await initiate(sim, 3)).body;
    await putChunk(sim, uploadId, "bytes 0-2/3", Buffer.from("abc"));
    const view = await simHttp(sim, "GET", `/uploads/${uploadId}`);
    expect(view.body).toMatchObject({
      status: "completed",
      receivedBytes: 3,
      size: 3,
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    });
    expect((await simHttp(sim, "POST", "/delays", { evaluationDelayMs: -1 })).status).toBe(400);
    await sim.control.reset();
    expect(sim.control.delays().uploadProcessingDelayMs).toBe(200);
  });
});

describe("Control: info and evaluations for clients in other runtimes", () => {
  it("serves URLs, keys, secrets and reference data at /_sim/info", async () => {
    const info = (await simHttp(sim, "GET", "/info")).body;
    expect(info).toMatchObject({
      baseUrl: sim.baseUrl,
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      keys: sim.keys,
      sessionToken: sim.sessionToken,
      workspaceId: sim.workspaceId,
      webhookSecret: sim.webhookSecret,
      reference: sim.reference,
      seed: 71,
    });
    expect((await simHttp(sim, "GET", "/evaluations")).body.evaluations).toEqual([]);
  });

  it("is deterministic for a seed", async () => {
    const again = await startSimulator({ seed: 71 });
    try {
      expect(again.keys).toEqual(sim.keys);
      expect(again.reference).toEqual(sim.reference);
    } finally {
      await again.close();
    }
  });
});

describe("Lifecycle: close() ends every socket, timer and pending webhook retry, and deletes stored bytes", () => {
  it("leaves nothing running", async () => {
    const parent = await mkdtemp(join(tmpdir(), "sim-close-"));
    const receiver = await startReceiver([500, 500, 500]);
    const baseline = process.getActiveResourcesInfo().filter((r) => r !== "TTYWrap");
    const s = await startSimulator({
      storageDir: parent,
      evaluationDelayMs: 0,
      webhookRetryDelaysMs: [60_000],
      webhookUrls: [receiver.url],
    });
    const api = mainApi(s);
    const created = (await api.post("/v1/promotions", textPromotion(s))).body;
    await api.post(`/v1/promotions/${created.promotionId}/versions/${created.versionId}/evaluate`);
    await waitFor(() => receiver.received.length === 1);
    await initiate(s, 10);
    s.control.addFault({ route: "GET /v1/channels", kind: "slow", delayMs: 60_000 });
    const pending = api.get("/v1/channels").catch((e: unknown) => e);
    await waitFor(() => (s.control.faults()[0]?.fired ?? 0) === 1);
    expect((await readdir(parent)).length).toBe(1);
    await s.close();
    await s.close();
    expect(await pending).toBeInstanceOf(Error);
    await expect(fetch(`${s.baseUrl}/v1/channels`)).rejects.toThrow();
    expect(await readdir(parent)).toEqual([]);
    // close() promises everything has ended by the time it settles: count at once, no grace period.
    const after = process.getActiveResourcesInfo().filter((r) => r !== "TTYWrap");
    const count = (list: string[], kind: string) => list.filter((r) => r === kind).length;
    expect(count(after, "Timeout")).toBeLessThanOrEqual(count(baseline, "Timeout"));
    expect(count(after, "TCPServerWrap")).toBe(count(baseline, "TCPServerWrap"));
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
    await rm(parent, { recursive: true, force: true });
  });

  it("fails cleanly when a port is taken", async () => {
    const port = Number(new URL(sim.baseUrl).port);
    await expect(startSimulator({ mainPort: port })).rejects.toThrow(/EADDRINUSE/);
    await expect(startSimulator({ filesPort: port })).rejects.toThrow(/EADDRINUSE/);
  });
});
