import {
  AbortError,
  AuthenticationError,
  NetworkError,
  PromoReviewError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { envelope, json, useScriptedServers } from "../test/support/server.js";
import { createHttpClient, type RequestBudget } from "./index.js";

const apiKey = "sk_test_abcdef123456";
const credentials = { apiKey, externalUserId: "user-42" };
const fast = { baseDelayMs: 1, maxDelayMs: 5, upstreamDelayMs: [1, 5] as const };
const serve = useScriptedServers();

describe("every request is authenticated", () => {
  it("an API key sends Bearer with one space, the user id and the optional email", async () => {
    const server = await serve(json(200, { ok: true, correlationId: "c1" }));
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      externalUserEmail: "ana@example.com",
    });
    await client.request("/v1/channels");
    const headers = server.seen[0]!.headers;
    expect(headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(headers["x-external-user-id"]).toBe("user-42");
    expect(headers["x-external-user-email"]).toBe("ana@example.com");
  });
  it("a session token sends the workspace fallback and no user headers", async () => {
    const server = await serve(json(200, {}));
    const client = createHttpClient({
      baseUrl: server.url,
      sessionToken: "st_abcdef",
      workspaceId: "w-1",
    });
    await client.request("/v1/uploads/x");
    const headers = server.seen[0]!.headers;
    expect(headers.authorization).toBe("Bearer st_abcdef");
    expect(headers["x-service-workspace-id"]).toBe("w-1");
    expect(headers["x-external-user-id"]).toBeUndefined();
  });
  it("bad credentials fail when the client is made, naming the field", () => {
    expect(() => createHttpClient({ baseUrl: "http://x", apiKey: " sk_x ", externalUserId: "u" })).toThrow(
      /apiKey: contains white space/,
    );
    expect(() => createHttpClient({ baseUrl: "http://x", apiKey: "sk_x", externalUserId: "" })).toThrow(
      ValidationError,
    );
    expect(() => createHttpClient({ baseUrl: "http://x", sessionToken: "" })).toThrow(
      /sessionToken: is required/,
    );
  });
});

describe("correlation ids follow one operation", () => {
  it("a fresh id per request, kept across its retries; the result carries the body's id", async () => {
    const server = await serve(envelope(500, "INTERNAL_ERROR"), json(200, { correlationId: "from-body" }));
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const result = await client.request("/v1/channels");
    expect(result.attempts).toBe(2);
    expect(result.correlationId).toBe("from-body");
    const [first, second] = server.seen;
    expect(first!.headers["x-correlation-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers["x-correlation-id"]).toBe(first!.headers["x-correlation-id"]);
    await client.request("/v1/channels");
    expect(server.seen[2]!.headers["x-correlation-id"]).not.toBe(first!.headers["x-correlation-id"]);
  });
  it("the caller's id is sent; without a body id the header's is returned", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "x-correlation-id": "echoed" });
      res.end("");
    });
    const client = createHttpClient({ baseUrl: server.url, ...credentials });
    const result = await client.request("/v1/x", { correlationId: "mine" });
    expect(server.seen[0]!.headers["x-correlation-id"]).toBe("mine");
    expect(result.correlationId).toBe("echoed");
    expect(result.data).toBeUndefined();
  });
});

describe("failures are typed errors from @promo-review/errors", () => {
  it("maps the envelope and a non-envelope body, never leaking the key", async () => {
    const server = await serve(envelope(401, "UNAUTHORIZED"), (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(`<html>Bad gateway for Bearer ${apiKey}</html>`);
    });
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: false });
    const unauthorized = await client.request("/v1/x").catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect((unauthorized as PromoReviewError).correlationId).toBe("cid-error");
    const proxy = await client.request("/v1/x").catch((e: unknown) => e);
    expect(proxy).toBeInstanceOf(ServerError);
    expect(JSON.stringify(proxy) + String(proxy)).not.toContain(apiKey);
  });
  it("a 2xx that is not JSON is an UNEXPECTED_RESPONSE", async () => {
    const server = await serve((_req, res) => res.end("<html>ok</html>"));
    const client = createHttpClient({ baseUrl: server.url, ...credentials });
    await expect(client.request("/v1/x")).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 200 });
  });
  it("a timeout is a TimeoutError; an abort is an AbortError", async () => {
    const server = await serve(() => {});
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: false });
    await expect(client.request("/v1/x", { timeoutMs: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = client.request("/v1/x", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });
});

describe("retries never duplicate work", () => {
  it("a GET is retried on 5xx; a POST is not", async () => {
    const server = await serve(
      envelope(503, "UPSTREAM_ERROR"),
      envelope(503, "UPSTREAM_ERROR"),
      json(200, {}),
    );
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    await expect(client.request("/v1/x", { method: "POST", json: {} })).rejects.toBeInstanceOf(ServerError);
    expect(server.seen).toHaveLength(1);
    expect((await client.request("/v1/x")).attempts).toBe(2);
  });
  it("a POST is retried on 429 after the server's Retry-After, with the same body", async () => {
    const server = await serve(envelope(429, "RATE_LIMITED", { "retry-after": "0" }), json(201, { id: 1 }));
    const retries: number[] = [];
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const result = await client.request<{ id: number }>("/v1/promotions", {
      method: "POST",
      json: { promotionName: "x" },
      onRetry: ({ delayMs }) => retries.push(delayMs),
    });
    expect(result).toMatchObject({ status: 201, data: { id: 1 }, attempts: 2 });
    expect(retries).toEqual([0]);
    expect(server.seen.map((s) => s.body)).toEqual(['{"promotionName":"x"}', '{"promotionName":"x"}']);
  });
  it("a caller may choose not to retry throttled requests", async () => {
    const server = await serve(envelope(429, "RATE_LIMITED", { "retry-after": "0" }));
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      retry: { ...fast, retryOnRateLimit: false },
    });
    await expect(client.request("/v1/x")).rejects.toBeInstanceOf(RateLimitError);
  });
  it("a POST whose connection broke mid-request is not retried; a GET is", async () => {
    const server = await serve((req) => req.socket.destroy());
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: { ...fast, limit: 2 } });
    const post = await client.request("/v1/x", { method: "POST", json: {} }).catch((e: unknown) => e);
    expect(post).toBeInstanceOf(NetworkError);
    expect((post as NetworkError).mayHaveReachedServer).toBe(true);
    expect(server.seen).toHaveLength(1);
    await expect(client.request("/v1/x")).rejects.toBeInstanceOf(NetworkError);
    expect(server.seen).toHaveLength(4);
  });
  it("a documented safe-retry POST may be marked idempotent", async () => {
    const server = await serve(envelope(500, "INTERNAL_ERROR"), json(200, { status: "pending" }));
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const result = await client.request("/v1/submit", { method: "POST", json: {}, idempotent: true });
    expect(result.attempts).toBe(2);
  });
  it("a stream body is sent once, never retried", async () => {
    const server = await serve(envelope(503, "SERVICE_ERROR"));
    const client = createHttpClient({ baseUrl: server.url, ...credentials, retry: fast });
    const body = new Blob(["chunk"]).stream();
    await expect(client.request("/v1/uploads/u", { method: "PUT", body })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(server.seen.map((s) => s.body)).toEqual(["chunk"]);
  });
  it("a stream body goes out as the very stream given: not cloned, not proxied by a new Request; the budget still admits it", async () => {
    const server = await serve(json(200, { ok: true }));
    const sent: { input: unknown; init: RequestInit | undefined }[] = [];
    const budget = fakeBudget();
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      fetch: (input, init) => {
        sent.push({ input, init });
        return fetch(input, init);
      },
      budget,
    });
    const body = new Blob(["x".repeat(100_000)]).stream();
    await client.request("/v1/uploads/u", { method: "PUT", body });
    expect(server.seen[0]!.body).toHaveLength(100_000);
    expect(sent).toHaveLength(1);
    // The caller's stream itself (a clone would tee it, `fetch(request)` would pipe it through an
    // identity TransformStream), with the client's headers, the attempt's signal and duplex.
    expect(sent[0]!.input).toBe(`${server.url}/v1/uploads/u`);
    const init = sent[0]!.init!;
    expect(init.body).toBe(body);
    expect(init).toMatchObject({ method: "PUT", duplex: "half", signal: expect.any(AbortSignal) });
    const headers = new Headers(init.headers);
    expect(headers.get("authorization")).toMatch(/^Bearer /);
    expect(headers.get("x-correlation-id")).toBeTruthy();
    expect(budget.log).toEqual([`acquire PUT ${server.url}/v1/uploads/u`, "settle"]);
  });
  it("a stream body that gets no answer times out as a TimeoutError", async () => {
    const server = await serve(() => {});
    const client = createHttpClient({ baseUrl: server.url, ...credentials });
    const body = new Blob(["chunk"]).stream();
    await expect(
      client.request("/v1/uploads/u", { method: "PUT", body, timeoutMs: 50 }),
    ).rejects.toBeInstanceOf(TimeoutError);
  });
  it("an abort during the backoff wait ends it at once", async () => {
    const server = await serve(envelope(503, "UPSTREAM_ERROR", { "retry-after": "30" }));
    const client = createHttpClient({ baseUrl: server.url, ...credentials });
    const controller = new AbortController();
    const pending = client.request("/v1/x", {
      signal: controller.signal,
      onRetry: () => setTimeout(() => controller.abort(), 10),
    });
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(server.seen).toHaveLength(1);
  });
});

describe("the budget and fetch are pluggable", () => {
  it("the budget admits every attempt, settles it when answered, learns from a 429, and a custom fetch is used", async () => {
    const server = await serve(
      envelope(429, "RATE_LIMITED", { "retry-after": "0" }),
      envelope(500, "INTERNAL_ERROR"),
      json(200, {}),
    );
    const budget = fakeBudget();
    let fetches = 0;
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      retry: fast,
      fetch: (input, init) => {
        fetches++;
        return fetch(input, init);
      },
      budget,
    });
    const result = await client.request("/v1/x");
    expect(result.attempts).toBe(3);
    const acquire = `acquire GET ${server.url}/v1/x`;
    // A retry acquires again: the service counts every request it receives.
    expect(budget.log).toEqual([acquire, "settle", "learn 429", acquire, "settle", acquire, "settle"]);
    expect(fetches).toBe(3);
  });
  it("the budget's own typed error passes through unchanged, nothing sent", async () => {
    const server = await serve(json(200, {}));
    const refusal = new PromoReviewError({ code: "BUDGET_QUEUE_FULL", message: "queue full" });
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      budget: {
        acquire: () => Promise.reject(refusal),
        learn: async () => undefined,
      },
    });
    await expect(client.request("/v1/x")).rejects.toBe(refusal);
    expect(server.seen).toHaveLength(0);
  });
  it("the budget's wait gets the caller's abort", async () => {
    const server = await serve(json(200, {}));
    const controller = new AbortController();
    const client = createHttpClient({
      baseUrl: server.url,
      ...credentials,
      budget: {
        acquire: (_request, { signal }) =>
          new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
        learn: async () => undefined,
      },
    });
    const pending = client.request("/v1/x", { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(server.seen).toHaveLength(0);
  });
});

/** A budget that admits at once and records what the pipeline asks of it. */
function fakeBudget(): RequestBudget & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    acquire: async (request) => {
      log.push(`acquire ${request.method} ${request.url}`);
      return { settle: () => void log.push("settle") };
    },
    learn: async (response) => {
      log.push(`learn ${response.status}`);
      return undefined;
    },
  };
}
