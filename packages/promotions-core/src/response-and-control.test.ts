import { ServerError, TimeoutError } from "@promo-review/errors";
import type { ResponseMetadata } from "@promo-review/http";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, expectTypeOf, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, requestsTo, simTextBody } from "../test/support/sim.js";

const sim = useSimulator(startSimulator, { mainApiLimit: 100_000, seed: 17 });
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };

/** Checks one `$response` against the simulator's log of the requests it describes. */
function expectDescribes(metadata: ResponseMetadata, method: string, path: string | RegExp, attempts = 1) {
  const seen = requestsTo(sim(), method, path);
  const last = seen.at(-1)!;
  expect(metadata.status).toBe(last.status);
  expect(metadata.attempts).toBe(attempts);
  expect(metadata.correlationId).toBe(last.correlationId);
  expect(metadata.headers).toBeInstanceOf(Headers);
  expect(metadata.durationMs).toBeGreaterThanOrEqual(0);
}

/** What every result must keep: `$response` there, and no rendering of the result changed by it. */
function expectHidden(result: object & { $response: ResponseMetadata }) {
  expect(Object.keys(result)).not.toContain("$response");
  expect(JSON.stringify(result)).not.toContain("$response");
  expect({ ...result }).not.toHaveProperty("$response");
  expect(Object.getOwnPropertyDescriptor(result, "$response")).toMatchObject({ enumerable: false });
}

describe("every operation's result carries a non-enumerable $response of its exchange", () => {
  it("create, get, createVersion, submit, decision, evaluate, evaluation", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    expectDescribes(created.$response, "POST", "/v1/promotions");
    expectHidden(created);
    const id = created.promotionId;
    const got = await promotions.get(id);
    expectDescribes(got.$response, "GET", `/v1/promotions/${id}`);
    expectHidden(got);
    const version = await promotions.createVersion(id, simTextBody(sim()));
    expectDescribes(version.$response, "POST", `/v1/promotions/${id}/versions`);
    const submitted = await promotions.submit(id, version.versionId);
    expectDescribes(submitted.$response, "POST", /\/submit$/);
    const decision = await promotions.decision(id, version.versionId);
    expectDescribes(decision.$response, "GET", /\/decision$/);
    const started = await promotions.evaluate(id, version.versionId);
    expectDescribes(started.$response, "POST", /\/evaluate$/);
    const record = await promotions.evaluation(id, version.versionId, started.evaluationId);
    expectDescribes(record.$response, "GET", /\/evaluations\//);
    expectTypeOf(got.$response).toEqualTypeOf<ResponseMetadata>();
    expectTypeOf(record.$response.durationMs).toEqualTypeOf<number>();
  });
  it("submitLatest and decisionOfLatest carry their last request's", async () => {
    const promotions = clientFor(sim());
    const created = await promotions.create(simTextBody(sim()));
    const submitted = await promotions.submitLatest(created.promotionId);
    expectDescribes(submitted.$response, "POST", /\/submit$/);
    expectHidden(submitted);
    const decision = await promotions.decisionOfLatest(created.promotionId);
    expectDescribes(decision.$response, "GET", /\/decision$/);
  });
});

describe("reference lists carry $response on the result and on the array, and say when cached", () => {
  it("a fetched list has its request's; a cached one the same with cached: true", async () => {
    const promotions = clientFor(sim());
    const fetched = await promotions.reference.channels();
    expectDescribes(fetched.$response, "GET", "/v1/channels");
    expect(fetched.$response.cached).toBeUndefined();
    expect(fetched.channels.$response).toBe(fetched.$response);
    expectHidden(fetched);
    expect(JSON.stringify(fetched.channels)).toBe(JSON.stringify([...fetched.channels]));
    const cached = await promotions.reference.channels();
    expect(requestsTo(sim(), "GET", "/v1/channels")).toHaveLength(1);
    expect(cached.fromCache).toBe(true);
    expect(cached.$response).toEqual({ ...fetched.$response, cached: true });
    expect(cached.channels.$response.cached).toBe(true);
  });
  it("a list another client put in a shared store says no request was made for it", async () => {
    const store = new Map();
    const shared = {
      get: (key: string) => store.get(key),
      set: (key: string, value: unknown) => void store.set(key, value),
      delete: (key: string) => void store.delete(key),
    };
    const filled = await clientFor(sim(), { referenceCache: { store: shared } }).reference.jurisdictions();
    const read = await clientFor(sim(), { referenceCache: { store: shared } }).reference.jurisdictions();
    expect(read.$response).toMatchObject({
      attempts: 0,
      durationMs: 0,
      cached: true,
      correlationId: filled.correlationId,
    });
  });
});

describe("timeoutMs and retry on each operation override the client's", () => {
  it("retry: false makes one attempt, where the client's policy would retry", async () => {
    const promotions = clientFor(sim(), { retry: fast });
    const { promotionId } = await promotions.create(simTextBody(sim()));
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "status", status: 500, count: 1 });
    await expect(promotions.get(promotionId, { retry: false })).rejects.toBeInstanceOf(ServerError);
    expect(requestsTo(sim(), "GET", `/v1/promotions/${promotionId}`)).toHaveLength(1);
    const again = await promotions.get(promotionId);
    expect(again.$response.attempts).toBe(1);
  });
  it("a per-call retry policy retries where the client's would not; attempts counts them", async () => {
    const promotions = clientFor(sim(), { retry: false });
    const { promotionId, versionId } = await promotions.create(simTextBody(sim()));
    sim().control.addFault({
      route: "GET /v1/promotions/*/versions/*/decision",
      kind: "status",
      status: 500,
      count: 2,
    });
    const decision = await promotions.decision(promotionId, versionId, { retry: fast });
    expect(decision.$response.attempts).toBe(3);
    expect(requestsTo(sim(), "GET", /\/decision$/).map((r) => r.status)).toEqual([500, 500, 200]);
  });
  it("a per-call retry limit caps the attempts", async () => {
    const promotions = clientFor(sim(), { retry: fast });
    sim().control.addFault({ route: "GET /v1/channels", kind: "status", status: 500, count: 5 });
    await expect(promotions.reference.channels({ retry: { limit: 1 } })).rejects.toBeInstanceOf(ServerError);
    expect(requestsTo(sim(), "GET", "/v1/channels")).toHaveLength(2);
  });
  it("timeoutMs bounds each attempt of this call only", async () => {
    const promotions = clientFor(sim(), { retry: fast });
    const { promotionId } = await promotions.create(simTextBody(sim()));
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "slow", delayMs: 30_000, count: 1 });
    const got = await promotions.get(promotionId, { timeoutMs: 200 });
    expect(got.$response.attempts).toBe(2);
    sim().control.addFault({ route: "GET /v1/promotions/*", kind: "slow", delayMs: 30_000, count: 1 });
    const failed = promotions.get(promotionId, { timeoutMs: 200, retry: false });
    await expect(failed).rejects.toBeInstanceOf(TimeoutError);
  });
  it("a creation sent with retry: false is not resent after a 429", async () => {
    const promotions = clientFor(sim(), { retry: fast });
    sim().control.addFault({
      route: "POST /v1/promotions",
      kind: "rate-limit",
      retryAfterSeconds: 0,
      count: 1,
    });
    await expect(promotions.create(simTextBody(sim()), { retry: false })).rejects.toMatchObject({
      status: 429,
    });
    expect(requestsTo(sim(), "POST", "/v1/promotions")).toHaveLength(1);
    sim().control.addFault({
      route: "POST /v1/promotions",
      kind: "rate-limit",
      retryAfterSeconds: 0,
      count: 1,
    });
    const created = await promotions.create(simTextBody(sim()));
    expect(created.$response.attempts).toBe(2);
  });
});
