import { RateLimitError, ServerError, TimeoutError } from "@promo-review/errors";
import type { ResponseMetadata } from "@promo-review/http";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, expectTypeOf, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { waitFor } from "../../../testing/wait-for.ts";
import { linksFor, recordingFetch, requestsTo, type Sent } from "../test/support/sim.js";

const sim = useSimulator(
  startSimulator,
  { mainApiLimit: 100_000, linkCaptureLimit: 100_000, linkImportDelayMs: 100, seed: 12 },
  {
    afterReset: (running) => {
      running.control.setDelays({ linkImportDelayMs: 100 });
    },
  },
);
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };
const DOC = "https://docs.google.com/document/d/1x2y3z/edit";

function expectHidden(result: object) {
  expect(Object.keys(result)).not.toContain("$response");
  expect(JSON.stringify(result)).not.toContain("$response");
  expect({ ...result }).not.toHaveProperty("$response");
}

describe("a capture's result carries a non-enumerable $response", () => {
  it("a generic capture: the capture request's", async () => {
    const result = await linksFor(sim()).capture("https://example.com/offer");
    const [post] = requestsTo(sim(), "POST", "/v1/links");
    expect(result.$response).toMatchObject({
      status: post!.status,
      attempts: 1,
      correlationId: post!.correlationId,
    });
    expect(result.$response.headers).toBeInstanceOf(Headers);
    expectHidden(result);
    expectTypeOf(result.$response).toEqualTypeOf<ResponseMetadata>();
  });
  it("an import: the completing poll's, attempts counting every poll; the saved state is plain JSON", async () => {
    const poll = await linksFor(sim()).startImport(DOC);
    const result = await poll.wait();
    const polls = sim()
      .control.requests()
      .filter((r) => r.method === "GET" && r.correlationId === result.correlationId);
    expect(polls.length).toBeGreaterThan(0);
    expect(result.$response.attempts).toBe(polls.length);
    expect(result.$response.attempts).toBe(result.attempts);
    expect(result.$response.status).toBe(polls.at(-1)!.status);
    expectHidden(result);
    expect(JSON.stringify(poll.toJSON())).not.toContain("$response");
  });
  it("a poll resumed already finished made no request: attempts 0, cached", async () => {
    const finished = await linksFor(sim()).startImport(DOC);
    await finished.wait();
    const saved = JSON.parse(JSON.stringify(finished.toJSON()));
    const before = sim().control.requests().length;
    const result = await linksFor(sim()).resumePoll(saved).wait();
    expect(sim().control.requests()).toHaveLength(before);
    expect(result.$response).toMatchObject({
      attempts: 0,
      durationMs: 0,
      cached: true,
      correlationId: saved.correlationId,
    });
  });
  it("frame discovery: its request's", async () => {
    const found = await linksFor(sim()).discoverFrames("https://www.figma.com/design/AbC123/Campaign");
    const [post] = requestsTo(sim(), "POST", "/v1/links/design/frames");
    expect(found.$response).toMatchObject({
      status: post!.status,
      attempts: 1,
      correlationId: post!.correlationId,
    });
    expectHidden(found);
  });
});

describe("retry on the client and on each call; timeoutMs on each call", () => {
  it("the client's retry: false makes a 429 final; a call's policy brings the retry back", async () => {
    const links = linksFor(sim(), { retry: false });
    sim().control.addFault({ route: "POST /v1/links", kind: "rate-limit", retryAfterSeconds: 0, count: 1 });
    await expect(links.capture("https://example.com/a")).rejects.toBeInstanceOf(RateLimitError);
    expect(requestsTo(sim(), "POST", "/v1/links")).toHaveLength(1);
    sim().control.addFault({ route: "POST /v1/links", kind: "rate-limit", retryAfterSeconds: 0, count: 1 });
    const result = await links.capture("https://example.com/a", { retry: { limit: 1 } });
    expect(result.$response.attempts).toBe(2);
  });
  it("a call's retry: false overrides the client's policy, for discovery too", async () => {
    const links = linksFor(sim(), { retry: fast });
    sim().control.addFault({ route: "POST /v1/links/design/frames", kind: "status", status: 500, count: 1 });
    const url = "https://www.figma.com/design/AbC123/Campaign";
    await expect(links.discoverFrames(url, { retry: false })).rejects.toBeInstanceOf(ServerError);
    expect(requestsTo(sim(), "POST", "/v1/links/design/frames")).toHaveLength(1);
    sim().control.addFault({ route: "POST /v1/links/design/frames", kind: "status", status: 500, count: 1 });
    expect((await links.discoverFrames(url)).$response.attempts).toBe(2);
  });
  it("a call's timeoutMs replaces captureTimeoutMs, and a capture that timed out is not resent", async () => {
    sim().control.addFault({ route: "POST /v1/links", kind: "slow", delayMs: 400, count: 1 });
    const sent: Sent[] = [];
    const links = linksFor(sim(), { captureTimeoutMs: 60_000, retry: fast, fetch: recordingFetch(sent) });
    await expect(links.capture("https://example.com/slow", { timeoutMs: 50 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    // Every attempt is sent before the capture settles, so what was sent is final here.
    expect(sent.filter((s) => s.method === "POST")).toHaveLength(1);
    // The simulator logs the cut request when it sees the connection close, which may come after the
    // client gave up: wait for that, so it is not logged into the next test's reset log.
    await waitFor(
      () => requestsTo(sim(), "POST", "/v1/links").length > 0,
      10_000,
      "the timed-out capture logged",
    );
    expect(requestsTo(sim(), "POST", "/v1/links")).toHaveLength(1);
  });
});
