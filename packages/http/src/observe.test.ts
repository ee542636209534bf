import { describe, expect, it } from "vitest";
import { envelope, json, scriptedServer } from "../test/support/server.js";
import { createHttpClient, type Logger, type RequestEvent, type RequestHooks } from "./index.js";

const credentials = { apiKey: "pr_live_SecretKey0123456789", externalUserId: "u-1" };
const noWait = { baseDelayMs: 0, upstreamDelayMs: [0, 0] as const };

/** Records every hook call and log line, in order, as the client made them. */
function recorder() {
  const calls: { name: string; event: RequestEvent & { delayMs?: number } }[] = [];
  const lines: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
  const hooks: RequestHooks = {
    beforeRequest: (event) => void calls.push({ name: "beforeRequest", event }),
    afterResponse: (event) => void calls.push({ name: "afterResponse", event }),
    beforeRetry: (event) => void calls.push({ name: "beforeRetry", event }),
  };
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, message, fields });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { calls, lines, hooks, logger };
}

describe("hooks: beforeRequest, afterResponse and beforeRetry around every attempt, in order", () => {
  it("a request retried after a 500 shows both attempts, the retry between them, with status, duration and one correlation id", async () => {
    const server = await scriptedServer(envelope(500, "INTERNAL_ERROR"), json(200, { ok: true }));
    const { calls, hooks, logger, lines } = recorder();
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials, hooks, logger, retry: noWait });
      const result = await http.request("/v1/things", { correlationId: "cid-1" });
      expect(result.attempts).toBe(2);
      expect(calls.map((c) => `${c.name}:${c.event.attempt}`)).toEqual([
        "beforeRequest:1",
        "afterResponse:1",
        "beforeRetry:1",
        "beforeRequest:2",
        "afterResponse:2",
      ]);
      const url = `${server.url}/v1/things`;
      for (const { event } of calls)
        expect(event).toMatchObject({ method: "GET", url, correlationId: "cid-1" });
      expect(calls[0]?.event).toEqual({ method: "GET", url, attempt: 1, correlationId: "cid-1" });
      expect(calls[1]?.event).toMatchObject({ status: 500, error: { code: "INTERNAL_ERROR" } });
      expect(calls[2]?.event).toMatchObject({ status: 500, delayMs: 0, error: { code: "INTERNAL_ERROR" } });
      expect(calls[4]?.event.status).toBe(200);
      expect(calls[4]?.event.error).toBeUndefined();
      for (const i of [1, 2, 4]) expect(calls[i]?.event.durationMs).toBeGreaterThanOrEqual(0);
      // One line per retry, then one per request.
      expect(lines.map((l) => l.level)).toEqual(["info", "debug"]);
      expect(lines[0]?.message).toBe(
        `promo-review retry 1 of GET ${url} after INTERNAL_ERROR (HTTP 500), in 0 ms (correlation id cid-1)`,
      );
      expect(lines[1]?.message).toMatch(
        new RegExp(
          `^promo-review GET ${url} -> 200 in [0-9.]+ ms, 2 attempt\\(s\\) \\(correlation id cid-1\\)$`,
        ),
      );
      expect(lines[1]?.fields).toMatchObject({
        event: "request",
        method: "GET",
        url,
        status: 200,
        attempts: 2,
      });
    } finally {
      await server.close();
    }
  });

  it("a connection refused is an attempt that ended with an error and no status; the request's line is a warning", async () => {
    const closed = await scriptedServer(json(200, {}));
    await closed.close();
    const { calls, hooks, logger, lines } = recorder();
    const http = createHttpClient({ baseUrl: closed.url, ...credentials, hooks, logger, retry: false });
    await expect(http.request("/v1/things", { method: "POST", json: {} })).rejects.toMatchObject({
      code: "NETWORK_ERROR",
    });
    expect(calls.map((c) => c.name)).toEqual(["beforeRequest", "afterResponse"]);
    expect(calls[1]?.event.status).toBeUndefined();
    expect(calls[1]?.event.error?.code).toBe("NETWORK_ERROR");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn", fields: { code: "NETWORK_ERROR", attempts: 1 } });
    expect(lines[0]?.message).toContain(`POST ${closed.url}/v1/things failed with NETWORK_ERROR`);
  });

  it("a final HTTP error is logged once as a warning with its code and status", async () => {
    const server = await scriptedServer(envelope(404, "NOT_FOUND"));
    const { calls, hooks, logger, lines } = recorder();
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials, hooks, logger });
      await expect(http.request("/v1/things/x")).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(calls.map((c) => c.name)).toEqual(["beforeRequest", "afterResponse"]);
      expect(lines.map((l) => [l.level, l.fields?.["status"], l.fields?.["code"]])).toEqual([
        ["warn", undefined, "NOT_FOUND"],
      ]);
      expect(lines[0]?.message).toContain("failed with NOT_FOUND (HTTP 404)");
    } finally {
      await server.close();
    }
  });
});

describe("an observer that throws or rejects never fails the request", () => {
  it("its failure goes to the logger at error, redacted, and the answer still comes back", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    const { logger, lines } = recorder();
    try {
      const http = createHttpClient({
        baseUrl: server.url,
        ...credentials,
        logger,
        hooks: {
          beforeRequest: () => {
            throw new Error(`boom ${credentials.apiKey}`);
          },
          afterResponse: () => Promise.reject(new Error("later")),
        },
      });
      const result = await http.request("/v1/things");
      expect(result.data).toEqual({ ok: true });
      await new Promise((resolve) => setImmediate(resolve));
      const errors = lines.filter((l) => l.level === "error").map((l) => l.message);
      expect(errors).toEqual([
        "promo-review beforeRequest hook threw: Error: boom [REDACTED]",
        "promo-review afterResponse hook threw: Error: later",
      ]);
    } finally {
      await server.close();
    }
  });

  it("a logger that throws does not fail the request either", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    const fail = () => {
      throw new Error("logger down");
    };
    try {
      const http = createHttpClient({
        baseUrl: server.url,
        ...credentials,
        logger: { debug: fail, info: fail, warn: fail, error: fail },
      });
      await expect(http.request("/v1/things")).resolves.toMatchObject({ status: 200 });
    } finally {
      await server.close();
    }
  });

  it("a class-based logger keeps its `this`", async () => {
    const server = await scriptedServer(json(200, {}));
    class Collecting {
      seen: string[] = [];
      debug(message: string) {
        this.seen.push(message);
      }
      info(message: string) {
        this.seen.push(message);
      }
      warn(message: string) {
        this.seen.push(message);
      }
      error(message: string) {
        this.seen.push(message);
      }
    }
    const logger = new Collecting();
    try {
      await createHttpClient({ baseUrl: server.url, ...credentials, logger }).request("/v1/x");
      expect(logger.seen).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("no secret reaches a hook argument or a log line", () => {
  it("a key in the URL (as an echoed statusUrl would carry it) is redacted; no header is ever passed", async () => {
    const server = await scriptedServer(
      envelope(500, "INTERNAL_ERROR", { "x-correlation-id": credentials.apiKey }),
      json(200, {}),
    );
    const { calls, lines, hooks, logger } = recorder();
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials, hooks, logger, retry: noWait });
      await http.request(`/v1/imports/1?token=${credentials.apiKey}`);
      expect(server.seen[0]?.url).toContain(credentials.apiKey);
      expect(calls).toHaveLength(5);
      for (const { event } of calls) {
        expect(event.url).toBe(`${server.url}/v1/imports/1?token=[REDACTED]`);
        expect(Object.keys(event).sort()).not.toContain("headers");
      }
      const everything = JSON.stringify({ calls, lines }) + calls.map((c) => String(c.event.error)).join();
      expect(everything).not.toContain(credentials.apiKey);
      expect(everything).not.toContain("Bearer");
    } finally {
      await server.close();
    }
  });
});

describe("the rate budget beside our hooks", () => {
  it("the budget admits the attempt before our beforeRequest, which fires when the attempt is sent", async () => {
    const server = await scriptedServer(json(200, {}));
    const order: string[] = [];
    try {
      const http = createHttpClient({
        baseUrl: server.url,
        ...credentials,
        budget: {
          acquire: async () => {
            order.push("budget");
            return { settle: () => void order.push("settled") };
          },
          learn: async () => undefined,
        },
        hooks: { beforeRequest: () => void order.push("ours") },
      });
      await http.request("/v1/x");
      expect(order).toEqual(["budget", "ours", "settled"]);
    } finally {
      await server.close();
    }
  });
});

describe("a request declares the statuses it expects: such an answer is observed as an answer", () => {
  const resumeIncomplete = (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(308, { range: "bytes=0-9", "x-correlation-id": "cid-308" });
    res.end();
  };
  it("a PUT expecting 308 resolves with it: no error, no warning, afterResponse sees the status alone", async () => {
    const server = await scriptedServer(resumeIncomplete);
    const { calls, hooks, logger, lines } = recorder();
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials, hooks, logger });
      const result = await http.request("/v1/uploads/u", {
        method: "PUT",
        body: "0123456789",
        expect: [308],
      });
      expect(result).toMatchObject({ status: 308, data: undefined, correlationId: "cid-308", attempts: 1 });
      expect(result.headers.get("range")).toBe("bytes=0-9");
      expect(calls.map((c) => c.name)).toEqual(["beforeRequest", "afterResponse"]);
      expect(calls[1]?.event.status).toBe(308);
      expect(calls[1]?.event.error).toBeUndefined();
      expect(lines.map((l) => l.level)).toEqual(["debug"]);
      expect(lines[0]?.message).toMatch(/PUT \S+ -> 308 in/);
    } finally {
      await server.close();
    }
  });
  it("a predicate serves as well; a JSON body of an expected status is parsed as a 2xx body is", async () => {
    const server = await scriptedServer(json(409, { state: "busy" }));
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials });
      const result = await http.request("/v1/x", { expect: (status) => status === 409 });
      expect(result).toMatchObject({ status: 409, data: { state: "busy" } });
    } finally {
      await server.close();
    }
  });
  it("without expect, the same 308 is an UNEXPECTED_RESPONSE, logged at warn and handed to hooks as an error", async () => {
    const server = await scriptedServer(resumeIncomplete);
    const { calls, hooks, logger, lines } = recorder();
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials, hooks, logger });
      const error = await http.request("/v1/uploads/u", { method: "PUT", body: "x" }).catch((e) => e);
      expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 308 });
      expect(calls[1]?.event.error?.code).toBe("UNEXPECTED_RESPONSE");
      expect(lines.map((l) => l.level)).toEqual(["warn"]);
    } finally {
      await server.close();
    }
  });
  it("a 308 with a Location stays a redirect, checked by the origin policy, even when 308 is expected", async () => {
    const server = await scriptedServer((_req, res) => {
      res.writeHead(308, { location: "http://127.0.0.1:9/elsewhere" });
      res.end();
    });
    try {
      const http = createHttpClient({ baseUrl: server.url, ...credentials });
      const error = await http.request("/v1/x", { method: "PUT", body: "x", expect: [308] }).catch((e) => e);
      expect(error).toMatchObject({ code: "FOREIGN_ORIGIN" });
      expect(server.seen).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("a client carries its `telemetry` to the packages built on it", () => {
  it("the observer given is the client's `telemetry`, which hears the client's requests; none given, none carried", async () => {
    const server = await scriptedServer(json(200, { ok: true }));
    try {
      const templates: (string | undefined)[] = [];
      const telemetry = {
        requestStarted: (start: { urlTemplate?: string }) => void templates.push(start.urlTemplate),
      };
      const http = createHttpClient({ baseUrl: server.url, ...credentials, telemetry });
      expect(http.telemetry).toBe(telemetry);
      await http.request("/v1/things/1", { urlTemplate: "/v1/things/{thingId}" });
      expect(templates).toEqual(["/v1/things/{thingId}"]);
      expect(createHttpClient({ baseUrl: server.url, ...credentials }).telemetry).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
