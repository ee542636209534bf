import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NOW_MS, SECRET, sampleEvent, signed } from "../test/support/fixtures.js";
import * as nodeEntry from "./index.node.js";
import { createWebhookVerifier, type NodeRequestLike, type WebhookEvent } from "./index.node.js";

const body = JSON.stringify(sampleEvent());
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

type Middleware = (
  req: IncomingMessage & { body?: unknown; rawBody?: unknown },
  res: ServerResponse,
) => Promise<void>;

async function serve(...chain: Middleware[]): Promise<string> {
  const server = createServer(async (req, res) => {
    for (const step of chain) await step(req, res);
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("the Node adapter reads the raw body of a node:http request", () => {
  it("verifies over real HTTP, runs the handler, and answers 200", async () => {
    const events: WebhookEvent[] = [];
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(
      (event) => {
        events.push(event);
      },
    );
    const url = await serve((req, res) => handle(req, res));
    const { headers } = await signed(nodeEntry, body);
    const response = await fetch(url, { method: "POST", headers, body });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("evaluation-completed");
  });

  it("uses req.rawBody, or req.body when a raw parser left bytes or text", async () => {
    const { headers } = await signed(nodeEntry, body);
    for (const keep of ["rawBody", "bodyBuffer", "bodyText"] as const) {
      let seen = 0;
      const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(() => {
        seen++;
      });
      const url = await serve(
        async (req) => {
          const raw = await readAll(req);
          if (keep === "rawBody") Object.assign(req, { rawBody: raw, body: JSON.parse(raw.toString()) });
          else req.body = keep === "bodyBuffer" ? raw : raw.toString("utf8");
        },
        (req, res) => handle(req, res),
      );
      expect((await fetch(url, { method: "POST", headers, body })).status).toBe(200);
      expect(seen).toBe(1);
    }
  });

  it("answers 500 and reports parsed_body when a JSON parser consumed the stream first", async () => {
    const reported: unknown[] = [];
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(() => {}, {
      onError: (error) => reported.push(error),
    });
    const url = await serve(
      async (req) => {
        req.body = JSON.parse((await readAll(req)).toString());
      },
      (req, res) => handle(req, res),
    );
    const { headers } = await signed(nodeEntry, body);
    const response = await fetch(url, { method: "POST", headers, body });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("parsed");
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ reason: "parsed_body" });
    expect(String((reported[0] as Error).message)).toContain("express.raw");
  });

  it("reads the stream when a parser left {} without consuming it (content type did not match)", async () => {
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(() => {});
    const url = await serve(
      async (req) => {
        req.body = {};
      },
      (req, res) => handle(req, res),
    );
    const { headers } = await signed(nodeEntry, body);
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(200);
  });

  it("answers 405 to GET, and 413 to a body over the limit, declared or chunked", async () => {
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(() => {}, {
      maxBodyBytes: 64,
    });
    const url = await serve((req, res) => handle(req, res));
    expect((await fetch(url)).status).toBe(405);
    const { headers } = await signed(nodeEntry, body);
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(413);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write("x".repeat(50));
      req.end("y".repeat(50));
    });
    expect(status).toBe(413);
  });

  it("collects string chunks from request-likes that are not node:http streams", async () => {
    const statuses: number[] = [];
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(() => {});
    const { headers } = await signed(nodeEntry, body);
    const req: NodeRequestLike = {
      headers,
      async *[Symbol.asyncIterator]() {
        yield body.slice(0, 10);
        yield new TextEncoder().encode(body.slice(10));
      },
    };
    const res = {
      statusCode: 0,
      setHeader: () => {},
      end() {
        statuses.push(this.statusCode);
      },
    };
    await handle(req, res);
    expect(statuses).toEqual([200]);
  });
});

describe("a req whose body something read first is answered 500 through onError, naming the fix", () => {
  /** Middlewares that read the stream before the handler and keep nothing in req.body. */
  const READ_FIRST: [string, Middleware][] = [
    [
      "read to its end, nothing kept",
      async (req) => {
        await readAll(req);
      },
    ],
    [
      "being read through data events",
      async (req) => {
        req.on("data", () => {});
      },
    ],
    [
      "partly read, then paused",
      async (req) => {
        await new Promise<void>((resolve) => req.once("readable", () => resolve()));
        req.read(1);
      },
    ],
  ];

  it.each(READ_FIRST)("a body %s", async (_, readFirst) => {
    const reported: unknown[] = [];
    let handled = 0;
    const handle = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS }).nodeHandler(
      () => {
        handled++;
      },
      { onError: (error) => reported.push(error) },
    );
    const url = await serve(readFirst, (req, res) => handle(req, res));
    const { headers } = await signed(nodeEntry, body);
    const response = await fetch(url, { method: "POST", headers, body });
    expect(response.status).toBe(500);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ reason: "parsed_body" });
    expect(String((reported[0] as Error).message)).toContain("verify before parsing");
    expect(handled).toBe(0);
  });
});
