import { inspect } from "node:util";
import {
  ForeignOriginError,
  RateLimitError,
  RedirectError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS, MAX_TIMER_MS } from "@promo-review/errors/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  echoSecrets,
  envelope,
  HUGE_WAITS,
  hugeWait,
  json,
  REDIRECT_CODES,
  redirect,
  stall,
  trickle,
  useHostileServers,
} from "../../../testing/hostile-server.ts";
import {
  createHttpClient,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  MAX_REDIRECTS,
  settleBoundMs,
} from "./index.js";
import { originOf } from "./origin.js";

const apiKey = "sk_test_hostile_0123456789";
const credentials = { apiKey, externalUserId: "user-42", externalUserEmail: "ana@example.com" };
const start = useHostileServers();

/** The service (our origin) and a stranger (another port on 127.0.0.1: another origin). */
async function serviceAndStranger() {
  const [service, stranger] = await Promise.all([start(), start()]);
  stranger.on(/.*/, json(200, { promotionId: "evil", channels: ["evil"] }));
  return { service, stranger };
}

describe("credentials go only to the configured origin", () => {
  it("an absolute URL on another origin is refused before sending, naming both origins", async () => {
    const { service, stranger } = await serviceAndStranger();
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    for (const method of ["GET", "POST", "PUT"]) {
      const error = await client
        .request(`${stranger.url}/v1/links/imports/x?sig=abc`, { method, json: {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ForeignOriginError);
      expect(error).toMatchObject({
        code: "FOREIGN_ORIGIN",
        origin: stranger.url,
        expectedOrigin: service.url,
      });
      expect((error as Error).message).toContain(stranger.url);
      expect((error as Error).message).toContain(service.url);
    }
    expect(() => client.url(`${stranger.url}/x`)).toThrow(ForeignOriginError);
    expect(stranger.requests).toEqual([]);
    expect(service.requests).toEqual([]);
  });

  it("origins compare after URL parsing: upper case and default ports are the same origin, localhost is not 127.0.0.1", async () => {
    const { service, stranger } = await serviceAndStranger();
    service.on(/.*/, json(200, { ok: true }));
    const port = new URL(service.url).port;
    const client = createHttpClient({ baseUrl: `${service.url}/api`, ...credentials });
    await client.request(`HTTP://127.0.0.1:${port}/v1/links/imports/a`);
    expect(service.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
    await expect(client.request(`http://localhost:${port}/v1/x`)).rejects.toBeInstanceOf(ForeignOriginError);
    await expect(client.request(`HTTP://127.0.0.1:${new URL(stranger.url).port}/x`)).rejects.toBeInstanceOf(
      ForeignOriginError,
    );
    await expect(client.request(`https://127.0.0.1:${port}/v1/x`)).rejects.toBeInstanceOf(ForeignOriginError);
    expect(stranger.requests).toEqual([]);
    expect(originOf("HTTP://EXAMPLE.com:80/a?b")).toBe("http://example.com");
    expect(originOf("https://example.com:443")).toBe("https://example.com");
    expect(originOf("https://bücher.example/x")).toBe("https://xn--bcher-kva.example");
    expect(originOf("not a url")).toBeUndefined();
  });

  it("any spelling of another host is refused (property)", async () => {
    const { service, stranger } = await serviceAndStranger();
    const client = createHttpClient({ baseUrl: service.url, ...credentials, retry: false });
    const base = new URL(service.url);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("http", "HTTP", "Http", "https"),
        fc.constantFrom("127.0.0.1", "localhost", "LOCALHOST", "127.1", "[::1]", "0x7f.0.0.1"),
        fc.constantFrom(base.port, new URL(stranger.url).port, "1"),
        fc.webPath(),
        async (scheme, host, port, path) => {
          const url = `${scheme}://${host}:${port}${path}`;
          const same = originOf(url) === base.origin;
          const outcome = await client.request(url).then(
            () => "sent",
            (e: unknown) => (e instanceof ForeignOriginError ? "refused" : "sent"),
          );
          expect(outcome).toBe(same ? "sent" : "refused");
        },
      ),
      { numRuns: 25 },
    );
    expect(stranger.requests).toEqual([]);
  });

  it("trustedOrigins lets a deployment's other origin get the request and its credentials", async () => {
    const { service, stranger } = await serviceAndStranger();
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      trustedOrigins: [`${stranger.url.toUpperCase()}/any/path`],
    });
    const result = await client.request<{ promotionId: string }>(`${stranger.url}/v1/x`);
    expect(result.data.promotionId).toBe("evil");
    expect(stranger.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  it("a bad baseUrl or trusted origin fails when the client is made, without repeating the value", () => {
    const bad = (baseUrl: string, trustedOrigins?: string[]) => () =>
      createHttpClient({ baseUrl, ...credentials, ...(trustedOrigins ? { trustedOrigins } : {}) });
    expect(bad("sk_live_looks_like_a_key")).toThrow(ValidationError);
    expect(bad("sk_live_looks_like_a_key")).toThrow(/baseUrl/);
    expect(bad("sk_live_looks_like_a_key")).not.toThrow(/sk_live/);
    expect(bad("ftp://127.0.0.1")).toThrow(/baseUrl/);
    expect(bad("http://127.0.0.1:1", ["nope"])).toThrow(/trustedOrigins\.0/);
  });
});

describe("redirects are never followed blindly", () => {
  for (const status of REDIRECT_CODES) {
    it(`${status} to another origin is a ForeignOriginError; nothing reaches it (GET and POST)`, async () => {
      const { service, stranger } = await serviceAndStranger();
      service.on(/.*/, redirect(status, `${stranger.url}/v1/promotions`));
      const client = createHttpClient({ baseUrl: service.url, ...credentials });
      const get = await client.request("/v1/channels").catch((e: unknown) => e);
      expect(get).toBeInstanceOf(ForeignOriginError);
      expect(get).toMatchObject({ origin: stranger.url, expectedOrigin: service.url });
      expect((get as Error).message).toMatch(/Redirected/);
      const post = await client
        .request("/v1/promotions", { method: "POST", json: { promotionName: "x" } })
        .catch((e: unknown) => e);
      expect(post).toBeInstanceOf(ForeignOriginError);
      expect(stranger.requests).toEqual([]);
      // The redirect is an answer, not a failure to retry: one request each.
      expect(service.requests).toHaveLength(2);
    });
  }

  it("a same-origin redirect of a GET is followed, with credentials, up to the hop limit", async () => {
    const service = await start();
    service.on(/GET \/hop\/\d+/, (res, request) => {
      const n = Number(request.url.split("/")[2]);
      redirect(302, `/hop/${n + 1}`)(res, request);
    });
    service.on(/GET \/hop\/3/, json(200, { arrived: true }));
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const result = await client.request<{ arrived: boolean }>("/hop/0");
    expect(result.data.arrived).toBe(true);
    expect(service.requests.map((r) => r.url)).toEqual(["/hop/0", "/hop/1", "/hop/2", "/hop/3"]);
    expect(service.requests.every((r) => r.headers.authorization === `Bearer ${apiKey}`)).toBe(true);

    service.on(/GET \/loop/, redirect(301, "/loop"));
    const loop = await client.request("/loop").catch((e: unknown) => e);
    expect(loop).toBeInstanceOf(RedirectError);
    expect(loop).toMatchObject({ code: "REDIRECT_REFUSED" });
    expect(service.requests.filter((r) => r.url === "/loop")).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("a write follows only a same-origin 307/308 with a replayable body; 301/302/303 and streams are refused", async () => {
    const service = await start();
    service.on(/POST \/v1\/old/, redirect(307, "/v1/new"));
    service.on(/POST \/v1\/new/, json(201, { created: true }));
    service.on(/POST \/v1\/see-other/, redirect(303, "/v1/new"));
    service.on(/PUT \/v1\/chunk/, redirect(308, "/v1/new"));
    service.on(/GET \/v1\/nowhere/, (res) => {
      res.writeHead(302, { location: "http://[bad" });
      res.end();
    });
    service.on(/GET \/v1\/no-location/, (res) => {
      res.writeHead(302);
      res.end();
    });
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const created = await client.request("/v1/old", { method: "POST", json: { promotionName: "x" } });
    expect(created.status).toBe(201);
    expect(service.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'POST /v1/old {"promotionName":"x"}',
      'POST /v1/new {"promotionName":"x"}',
    ]);
    await expect(client.request("/v1/see-other", { method: "POST", json: {} })).rejects.toThrow(
      /would turn the POST into a GET/,
    );
    const stream = new Blob(["chunk"]).stream();
    await expect(client.request("/v1/chunk", { method: "PUT", body: stream })).rejects.toThrow(
      /cannot be sent twice/,
    );
    await expect(client.request("/v1/nowhere")).rejects.toThrow(/no valid Location/);
    // No Location points nowhere: an answer (typed, not followed), not a redirect.
    await expect(client.request("/v1/no-location")).rejects.toMatchObject({ status: 302 });
    expect(service.requests.filter((r) => r.url === "/v1/new")).toHaveLength(1);
  });

  it("a browser's opaque redirect (status 0, no Location) is refused, not taken as an answer", async () => {
    const service = await start();
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      fetch: async () => Object.defineProperty(new Response(null), "type", { value: "opaqueredirect" }),
    });
    const error = await client.request("/v1/channels").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as Error).message).toMatch(/opaque redirect/);
  });
});

describe("a deadline covers the whole exchange, body included", () => {
  it("a trickling success body fails with TimeoutError at timeoutMs, not when the server stops", async () => {
    const service = await start();
    service.on(/.*/, trickle(200, { everyMs: 50 }));
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 300, retry: false });
    await expect(client.request("/v1/promotions/x")).rejects.toBeInstanceOf(TimeoutError);
  });

  it("a trickling error body fails the same way", async () => {
    const service = await start();
    service.on(/.*/, trickle(500, { everyMs: 50 }));
    const client = createHttpClient({ baseUrl: service.url, ...credentials, retry: false });
    await expect(client.request("/v1/x", { timeoutMs: 300 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it("a body that stalls (no byte for idleTimeoutMs) fails although timeoutMs is far away", async () => {
    const service = await start();
    service.on(/.*/, stall(200));
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      timeoutMs: 600_000,
      idleTimeoutMs: 200,
      retry: false,
    });
    const error = await client.request("/v1/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(String((error as Error).cause)).toMatch(/stalled/);
  });

  it("a stream upload answered by a stalled server fails at timeoutMs", async () => {
    const service = await start();
    service.on(/.*/, stall(200));
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 300 });
    const body = new Blob(["chunk"]).stream();
    await expect(client.request("/v1/uploads/u", { method: "PUT", body })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    expect(service.requests).toHaveLength(1);
  });

  it("time spent waiting for the rate budget does not count against timeoutMs", async () => {
    const service = await start();
    service.on(/.*/, json(200, { ok: true }));
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      timeoutMs: 200,
      retry: false,
      budget: {
        acquire: () => new Promise((resolve) => setTimeout(() => resolve({ settle: () => {} }), 400)),
        learn: async () => undefined,
      },
    });
    expect((await client.request<{ ok: boolean }>("/v1/channels")).data.ok).toBe(true);
  });

  it("with default options a call settles within the documented bound", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_IDLE_TIMEOUT_MS).toBeLessThan(DEFAULT_TIMEOUT_MS);
    expect(DEFAULT_RETRY.limit).toBe(3);
    expect(settleBoundMs()).toBe(4 * 30_000 + 3 * MAX_SERVER_WAIT_MS);
    expect(settleBoundMs({ timeoutMs: 1000, retry: false })).toBe(1000);
  });
});

describe("a low-speed limit ends a body that trickles slower than minBytesPerSecond", () => {
  it("one byte every 50 ms under a 100 bytes/s floor fails after about one idleTimeoutMs, naming the slow body", async () => {
    const service = await start();
    service.on(/.*/, trickle(200, { everyMs: 50 }));
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      timeoutMs: 600_000,
      idleTimeoutMs: 1000,
      minBytesPerSecond: 100,
      retry: false,
    });
    const error = await client.request("/v1/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(
      /^GET \S+\/v1\/x timed out \(the response body stalled: \d+ bytes in \d+ ms \(\d+ bytes\/s\), under the floor of 100 bytes\/s\)/,
    );
    // The message names the floor, not the 600 s timeoutMs: that is what ended it (no clock is read,
    // so a loaded machine cannot fail this).
  });

  it("a body that keeps pace is read whole however long it takes; a request may set its own floor", async () => {
    const service = await start();
    // 50 bytes a second for about 2 s, against a floor of 5 over each 500 ms: ten times the pace needed.
    const body = JSON.stringify({ padding: "x".repeat(90) });
    service.on(/.*/, trickle(200, { body, everyMs: 20 }));
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      idleTimeoutMs: 500,
      minBytesPerSecond: 5,
      retry: false,
    });
    expect((await client.request("/v1/x")).data).toEqual(JSON.parse(body));
    await expect(client.request("/v1/x", { minBytesPerSecond: 1_000_000 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
  });
});

describe("server-given waits are bounded", () => {
  for (const wait of HUGE_WAITS) {
    it(`${wait.name}: a RateLimitError at once carrying retryAfterMs, no retry, no sleep`, async () => {
      const service = await start();
      service.on(/.*/, hugeWait(wait));
      const client = createHttpClient({ baseUrl: service.url, ...credentials });
      const retries: number[] = [];
      const error = await client
        .request("/v1/promotions", {
          method: "POST",
          json: {},
          onRetry: ({ delayMs }) => retries.push(delayMs),
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(MAX_SERVER_WAIT_MS);
      expect(retries).toEqual([]);
      expect(service.requests).toHaveLength(1);
    });
  }

  it("a wait at the bound is still honoured (it is retried)", async () => {
    const service = await start();
    service.on(/.*/, envelope(429, "RATE_LIMITED", { "retry-after": String(MAX_SERVER_WAIT_MS / 1000) }));
    const controller = new AbortController();
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const pending = client.request("/v1/x", {
      signal: controller.signal,
      onRetry: ({ delayMs }) => {
        expect(delayMs).toBe(MAX_SERVER_WAIT_MS);
        controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
  });
});

describe("a transient upstream failure is retried after 2 to 5 seconds", () => {
  it("UPSTREAM_ERROR on a GET: one retry, its delay inside [2000, 5000] (real wait)", async () => {
    const service = await start();
    // The service recovers once the first answer was given (decided per request: a switch after a
    // fixed 100 ms sleep assumed the first request had been answered by then, which load can delay).
    const failing = envelope(502, "UPSTREAM_ERROR");
    const recovered = json(200, { channels: [] });
    service.on(/.*/, (res, request) => (service.requests.length === 1 ? failing : recovered)(res, request));
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const delays: number[] = [];
    const result = await client.request("/v1/channels", {
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    expect(result.attempts).toBe(2);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[0]).toBeLessThanOrEqual(5000);
  });

  it("a bare 502/503/504 is upstream; a documented SERVICE_ERROR keeps the normal backoff", async () => {
    const service = await start();
    const client = createHttpClient({
      baseUrl: service.url,
      ...credentials,
      retry: { limit: 1, upstreamDelayMs: [20, 30], baseDelayMs: 1, maxDelayMs: 1 },
    });
    for (const status of [502, 503, 504]) {
      service.on(/.*/, (res) => {
        res.writeHead(status, { "content-type": "text/html" });
        res.end("<html>Bad gateway</html>");
      });
      const delays: number[] = [];
      await expect(
        client.request("/v1/x", { onRetry: ({ delayMs }) => delays.push(delayMs) }),
      ).rejects.toBeInstanceOf(ServerError);
      expect(delays[0]).toBeGreaterThanOrEqual(20);
      expect(delays[0]).toBeLessThanOrEqual(30);
    }
    service.on(/.*/, envelope(503, "SERVICE_ERROR"));
    const delays: number[] = [];
    await expect(
      client.request("/v1/x", { onRetry: ({ delayMs }) => delays.push(delayMs) }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(delays[0]).toBeLessThanOrEqual(1);
  });
});

describe("a client holds no secret in any property", () => {
  it("no rendering of the client shows the key: JSON, inspect (hidden too), structured clone, own properties", async () => {
    const service = await start();
    const client = createHttpClient({ baseUrl: service.url, sessionToken: "st_secret_tok" });
    const keyed = createHttpClient({ baseUrl: service.url, ...credentials });
    for (const [value, secret] of [
      [client, "st_secret_tok"],
      [keyed, apiKey],
    ] as const) {
      expect(JSON.stringify(value)).not.toContain(secret);
      expect(
        inspect(value, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
      ).not.toContain(secret);
      expect(
        JSON.stringify(
          structuredClone({
            ...value,
            request: undefined,
            url: undefined,
            redact: undefined,
            telemetry: undefined,
          }),
        ),
      ).not.toContain(secret);
      expect(Reflect.ownKeys(value).sort()).toEqual(["baseUrl", "redact", "request", "telemetry", "url"]);
      // The redactor holds the secret only in its closure, and does its job.
      expect(value.redact(`echoed ${secret}`)).toBe("echoed [REDACTED]");
    }
  });

  it("an answer that echoes the key does not put it in the error's message", async () => {
    const service = await start();
    service.on(/.*/, echoSecrets(400, "VALIDATION_ERROR"));
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const error = await client.request("/v1/x").catch((e: unknown) => e);
    expect(String(error)).not.toContain(apiKey);
    expect(service.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
  });
});
