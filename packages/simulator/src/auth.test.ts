import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { call, initiate, mainApi, mainHeaders, textPromotion } from "../test/support/api.js";
import { startSimulator } from "./index.js";

const sim = useSimulator(startSimulator, { seed: 11 });

const channels = (headers: Record<string, string>) => call(`${sim().baseUrl}/v1/channels`, { headers });

describe("Authentication 1: Authorization: Bearer <API_KEY> with one space", () => {
  it("accepts a valid production key", async () => {
    expect((await channels(mainHeaders(sim()))).status).toBe(200);
  });

  it.each([
    ["missing", undefined],
    ["two spaces", (k: string) => `Bearer  ${k}`],
    ["lowercase scheme", (k: string) => `bearer ${k}`],
    ["no scheme", (k: string) => k],
    ["a tab instead of the space", (k: string) => `Bearer\t${k}`],
    ["unknown key", () => "Bearer pr_live_nope"],
  ])("rejects %s with 401 UNAUTHORIZED", async (_name, make) => {
    const headers: Record<string, string> = { "X-External-User-ID": "u" };
    if (make) headers["Authorization"] = make(sim().apiKey);
    const res = await channels(headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  it("rejects a staging key with 401, saying staging and production keys are not interchangeable", async () => {
    const res = await channels(mainHeaders(sim(), { Authorization: `Bearer ${sim().keys.stagingKey}` }));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/staging and production keys are not interchangeable/);
  });

  it("rejects a revoked key with 401", async () => {
    const res = await channels(mainHeaders(sim(), { Authorization: `Bearer ${sim().keys.revokedKey}` }));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/revoked/);
  });
});

describe("Authentication 6: a key not fully configured is a known failure; the caller contacts support with the correlationId", () => {
  it("answers 403 FORBIDDEN quoting the correlation id", async () => {
    const res = await channels(mainHeaders(sim(), { Authorization: `Bearer ${sim().keys.unconfiguredKey}` }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect(res.body.error.message).toContain(res.body.correlationId);
    expect(res.body.error.message).toMatch(/support/);
  });

  it("is also 403 on the file service", async () => {
    const res = await call(`${sim().filesUrl}/v1/uploads/x`, {
      headers: { Authorization: `Bearer ${sim().keys.unconfiguredKey}`, "x-external-user-id": "u" },
    });
    expect(res.status).toBe(403);
  });
});

describe("Authentication 2: main API requires X-External-User-ID", () => {
  it("answers 400 INVALID_REQUEST without it", async () => {
    const res = await channels({ Authorization: `Bearer ${sim().apiKey}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
  });
});

describe("Authentication 3: X-External-User-Email is mandatory on writes with act-on-behalf keys, ignored otherwise", () => {
  const actOnBehalf = () => ({ Authorization: `Bearer ${sim().keys.actOnBehalfKey}` });

  it("rejects a write without a valid email on an act-on-behalf key", async () => {
    for (const email of [undefined, "not-an-email"]) {
      const res = await mainApi(sim(), {
        ...actOnBehalf(),
        ...(email ? { "X-External-User-Email": email } : {}),
      }).post("/v1/promotions", textPromotion(sim()));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("accepts the write with an email, and reads without one", async () => {
    const withEmail = mainApi(sim(), { ...actOnBehalf(), "X-External-User-Email": "ana@example.com" });
    expect((await withEmail.post("/v1/promotions", textPromotion(sim()))).status).toBe(201);
    expect((await mainApi(sim(), actOnBehalf()).get("/v1/channels")).status).toBe(200);
  });

  it("ignores a malformed email on an ordinary key", async () => {
    const res = await mainApi(sim(), { "X-External-User-Email": "nope" }).post(
      "/v1/promotions",
      textPromotion(sim()),
    );
    expect(res.status).toBe(201);
  });
});

describe("Authentication 4 and 5: file service takes an API key with x-external-user-id, or a session token with x-service-workspace-id", () => {
  const body = JSON.stringify({ fileName: "a.pdf", fileSize: 10, contentType: "application/pdf" });
  const post = (headers: Record<string, string>) =>
    call(`${sim().filesUrl}/v1/uploads`, { method: "POST", headers, body });

  it("requires x-external-user-id with an API key", async () => {
    const res = await post({ Authorization: `Bearer ${sim().apiKey}` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect((await initiate(sim(), 10)).status).toBe(201);
  });

  it("accepts a session token with its workspace id and without user headers", async () => {
    const res = await post({
      Authorization: `Bearer ${sim().sessionToken}`,
      "x-service-workspace-id": sim().workspaceId,
    });
    expect(res.status).toBe(201);
  });

  it("rejects a session token without the workspace header or with another workspace", async () => {
    for (const workspace of [undefined, "00000000-0000-4000-8000-000000000000"]) {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${sim().sessionToken}`,
        "x-external-user-id": "u",
      };
      if (workspace) headers["x-service-workspace-id"] = workspace;
      const res = await post(headers);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("rejects staging, revoked and unknown keys with 401", async () => {
    for (const key of [sim().keys.stagingKey, sim().keys.revokedKey, "junk"]) {
      expect((await post({ Authorization: `Bearer ${key}`, "x-external-user-id": "u" })).status).toBe(401);
    }
  });

  it("does not accept the session token on the main API", async () => {
    expect(
      (await channels(mainHeaders(sim(), { Authorization: `Bearer ${sim().sessionToken}` }))).status,
    ).toBe(401);
  });
});

describe("Common: correlationId in every body, X-Correlation-ID echoed", () => {
  it("generates one per response, the same in header and body", async () => {
    const res = await channels(mainHeaders(sim()));
    expect(res.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-correlation-id")).toBe(res.body.correlationId);
  });

  it("echoes the caller's X-Correlation-ID on successes, errors, 404 and 429-style failures alike", async () => {
    const trace = "trace-1234";
    const requests = [
      channels(mainHeaders(sim(), { "X-Correlation-ID": trace })),
      channels({ "X-Correlation-ID": trace }),
      call(`${sim().baseUrl}/nowhere`, { headers: { "X-Correlation-ID": trace } }),
      call(`${sim().filesUrl}/v1/uploads/nope`, {
        headers: mainHeaders(sim(), { "X-Correlation-ID": trace }),
      }),
    ];
    for (const res of await Promise.all(requests)) {
      expect(res.headers.get("x-correlation-id")).toBe(trace);
      expect(res.body.correlationId).toBe(trace);
    }
  });
});

describe("Errors: the envelope and the status mapping", () => {
  it("has exactly error {code, message, details?} and correlationId, as application/json", async () => {
    const res = await call(`${sim().baseUrl}/v1/unknown`, { headers: mainHeaders(sim()) });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(["correlationId", "error"]);
    expect(Object.keys(res.body.error).sort()).toEqual(["code", "message"]);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("answers 404 NOT_FOUND for unknown routes outside /v1 too, on both servers", async () => {
    for (const url of [
      `${sim().baseUrl}/`,
      `${sim().filesUrl}/v2/uploads`,
      `${sim().baseUrl}/_sim/nothing`,
    ]) {
      const res = await call(url);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
  });

  it("answers 400 INVALID_REQUEST for a body that is not a JSON object", async () => {
    for (const body of ["{oops", "[1,2]"]) {
      const res = await call(`${sim().baseUrl}/v1/promotions`, {
        method: "POST",
        headers: mainHeaders(sim()),
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("answers 413 PAYLOAD_TOO_LARGE for a JSON body over 1 MiB", async () => {
    const res = await call(`${sim().baseUrl}/v1/promotions`, {
      method: "POST",
      headers: mainHeaders(sim()),
      body: JSON.stringify({ caption: "x".repeat(1_100_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.details[0]).toMatchObject({ constraint: "max_body_size", limit: 1_048_576 });
  });
});

describe("CORS: browsers call both servers cross-origin", () => {
  it.each(["baseUrl", "filesUrl"] as const)(
    "answers the preflight on %s allowing every API header",
    async (which) => {
      const res = await fetch(`${sim()[which]}/v1/uploads/x`, {
        method: "OPTIONS",
        headers: { Origin: "http://example.test", "Access-Control-Request-Method": "PUT" },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const h of [
        "authorization",
        "content-type",
        "content-range",
        "x-external-user-id",
        "x-external-user-email",
        "x-correlation-id",
        "x-service-workspace-id",
        "traceparent",
        "tracestate",
      ]) {
        expect(allowed).toContain(h);
      }
      expect(res.headers.get("access-control-allow-methods")).toContain("PUT");
    },
  );

  it("sends Allow-Origin and exposes X-Correlation-ID and Retry-After on responses", async () => {
    const res = await fetch(`${sim().baseUrl}/v1/channels`, { headers: mainHeaders(sim()) });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toBe("X-Correlation-ID, Retry-After");
  });
});
