import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { call, initiate, mainApi, mainHeaders, putChunk, simHttp } from "../test/support/api.js";
import { routeMatches } from "./faults.js";
import { startSimulator } from "./index.js";

const sim = useSimulator(startSimulator, { seed: 61, mainApiLimit: 100_000 });

const channels = () => mainApi(sim()).get("/v1/channels");

describe("Faults: 5xx with INTERNAL_ERROR, UPSTREAM_ERROR or SERVICE_ERROR", () => {
  it("answers the injected status and code in the envelope, once per count", async () => {
    const fault = await simHttp(sim(), "POST", "/faults", {
      route: "GET /v1/channels",
      kind: "status",
      status: 502,
      code: "UPSTREAM_ERROR",
      count: 1,
    });
    expect(fault.status).toBe(201);
    const res = await channels();
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("UPSTREAM_ERROR");
    expect(res.body.correlationId).toBe(res.headers.get("x-correlation-id"));
    expect((await channels()).status).toBe(200);
  });

  it("defaults to 500 INTERNAL_ERROR, and SERVICE_ERROR for other statuses on the file service", async () => {
    sim().control.addFault({ route: "GET /v1/channels", kind: "status", count: 1 });
    expect((await channels()).body.error.code).toBe("INTERNAL_ERROR");
    sim().control.addFault({ route: "POST /v1/uploads", kind: "status", status: 503, count: 1 });
    const res = await initiate(sim(), 10);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("SERVICE_ERROR");
    sim().control.addFault({ route: "GET /v1/jurisdictions", kind: "status", status: 504, count: 1 });
    expect((await mainApi(sim()).get("/v1/jurisdictions")).body.error.code).toBe("UPSTREAM_ERROR");
  });

  it("stores nothing from a chunk PUT that failed by injection", async () => {
    const { body } = await initiate(sim(), 10);
    sim().control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 500, count: 1 });
    expect((await putChunk(sim(), body.uploadId, "bytes 0-9/10", Buffer.alloc(10))).status).toBe(500);
    expect(sim().control.upload(body.uploadId).receivedBytes).toBe(0);
    expect((await putChunk(sim(), body.uploadId, "bytes 0-9/10", Buffer.alloc(10))).status).toBe(200);
  });
});

describe("Faults: connection reset in the middle of a request body", () => {
  it("destroys the socket after afterBytes; nothing is stored; the log records the fault", async () => {
    const { body } = await initiate(sim(), 100_000);
    const fault = sim().control.addFault({
      route: "PUT /v1/uploads/*",
      kind: "reset",
      afterBytes: 1000,
      count: 1,
    });
    await expect(
      putChunk(sim(), body.uploadId, "bytes 0-99999/100000", Buffer.alloc(100_000)),
    ).rejects.toThrow();
    expect(sim().control.upload(body.uploadId).receivedBytes).toBe(0);
    const entry = sim()
      .control.requests()
      .find((e) => e.fault);
    expect(entry).toMatchObject({
      method: "PUT",
      status: null,
      fault: { faultId: fault.faultId, kind: "reset" },
    });
  });

  it("resets at once without afterBytes, and when the body ends first", async () => {
    sim().control.addFault({ route: "GET /v1/channels", kind: "reset", count: 1 });
    await expect(channels()).rejects.toThrow();
    sim().control.addFault({ route: "POST /v1/promotions", kind: "reset", afterBytes: 1_000_000, count: 1 });
    await expect(mainApi(sim()).post("/v1/promotions", { small: true })).rejects.toThrow();
  });
});

describe("Faults: slow responses", () => {
  it("delays the response, then handles it normally", async () => {
    sim().control.addFault({ route: "GET /v1/channels", kind: "slow", delayMs: 300, count: 1 });
    const started = Date.now();
    const res = await channels();
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });
});

describe("Faults: forced 429 with a chosen Retry-After", () => {
  it("answers RATE_LIMITED with the header and retry_info, consuming no budget", async () => {
    sim().control.addFault({ route: "*", kind: "rate-limit", retryAfterSeconds: 2.5, count: 1 });
    const res = await channels();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.body.error.details).toEqual([{ type: "retry_info", retryAfterSeconds: 2.5 }]);
  });
});

describe("Faults: non-JSON error bodies (a proxy's HTML 502)", () => {
  it("answers 502 text/html", async () => {
    sim().control.addFault({ route: "* /v1/*", kind: "html-502", count: 1 });
    const res = await channels();
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.body).toContain("502 Bad Gateway");
  });
});

describe("Faults: by probability with a seed, so a failing run can be replayed", () => {
  async function pattern(seed: number): Promise<number[]> {
    const s = await startSimulator({ seed: 5, mainApiLimit: 100_000 });
    try {
      s.control.addFault({ route: "GET /v1/channels", kind: "status", probability: 0.5, seed });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        statuses.push((await call(`${s.baseUrl}/v1/channels`, { headers: mainHeaders(s) })).status);
      }
      return statuses;
    } finally {
      await s.close();
    }
  }

  it("fires the same pattern for the same seed, about half the time", async () => {
    const a = await pattern(99);
    expect(await pattern(99)).toEqual(a);
    const failures = a.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(5);
    expect(failures).toBeLessThan(25);
  });

  it("never fires at probability 0", async () => {
    sim().control.addFault({ route: "*", kind: "status", probability: 0 });
    expect((await channels()).status).toBe(200);
  });
});

describe("Faults: management over HTTP and route patterns", () => {
  it("lists, removes and clears faults; validates specs", async () => {
    const a = sim().control.addFault({ route: "GET /v1/x", kind: "slow" });
    sim().control.addFault({ route: "GET /v1/y", kind: "slow" });
    expect((await simHttp(sim(), "GET", "/faults")).body.faults).toHaveLength(2);
    expect((await simHttp(sim(), "DELETE", `/faults/${a.faultId}`)).body.removed).toBe(a.faultId);
    expect((await simHttp(sim(), "DELETE", `/faults/${a.faultId}`)).status).toBe(404);
    expect((await simHttp(sim(), "DELETE", "/faults")).body.cleared).toBe(1);
    const bad = await simHttp(sim(), "POST", "/faults", {
      route: "",
      kind: "boom",
      code: "X",
      probability: 2,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      "route",
      "kind",
      "code",
      "probability",
    ]);
  });

  it("matches methods and globs", () => {
    expect(routeMatches("*", "GET", "/v1/a")).toBe(true);
    expect(routeMatches("PUT /v1/uploads/*", "PUT", "/v1/uploads/abc")).toBe(true);
    expect(routeMatches("PUT /v1/uploads/*", "GET", "/v1/uploads/abc")).toBe(false);
    expect(routeMatches("POST /v1/promotions", "POST", "/v1/promotions/x/versions")).toBe(false);
    expect(routeMatches("* /v1/promotions/*/versions", "post", "/v1/promotions/x/versions")).toBe(true);
    expect(routeMatches("GET", "GET", "/v1")).toBe(false);
  });

  it("never applies to the control surface", async () => {
    sim().control.addFault({ route: "*", kind: "status" });
    expect((await simHttp(sim(), "GET", "/faults")).status).toBe(200);
  });
});

describe("Faults: a raw socket sees the reset", () => {
  it("ends the connection without a response", async () => {
    sim().control.addFault({ route: "GET /v1/channels", kind: "reset", count: 1 });
    const error = await new Promise<Error>((resolve) => {
      const req = request(`${sim().baseUrl}/v1/channels`, { headers: mainHeaders(sim()) }, () =>
        resolve(new Error("answered")),
      );
      req.on("error", resolve);
      req.end();
    });
    expect(error.message).toMatch(/socket hang up|ECONNRESET/);
  });
});
