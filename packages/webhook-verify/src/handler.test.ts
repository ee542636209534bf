import { WebhookVerificationError } from "@promo-review/errors";
import { describe, expect, it, vi } from "vitest";
import { NOW_MS, NOW_S, SECRET, sampleEvent, signed } from "../test/support/fixtures.js";
import * as nodeEntry from "./index.node.js";
import { createWebhookVerifier, type WebhookEvent } from "./index.node.js";

const body = JSON.stringify(sampleEvent());

function post(headers: Record<string, string>, payload: BodyInit = body): Request {
  return new Request("http://localhost/webhooks", { method: "POST", headers, body: payload });
}

function make() {
  return createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
}

describe("the Fetch handler answers 2xx only after the handler succeeds", () => {
  it("runs the handler and the listeners of the kind, then answers 200", async () => {
    const verifier = make();
    const order: string[] = [];
    verifier.on("evaluation-completed", async (event) => {
      order.push(`listener ${event.data.status}`);
    });
    verifier.on("promotion-archived", () => order.push("other kind"));
    const handle = verifier.handler(async (event: WebhookEvent, delivery) => {
      order.push(`handler ${event.type} ${delivery.id}`);
    });
    const { headers } = await signed(nodeEntry, body);
    const response = await handle(post(headers));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(order).toEqual([
      "handler evaluation-completed msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
      "listener completed",
    ]);
  });

  it("answers 500 when the handler throws, releases the id, and processes the retry once", async () => {
    const verifier = make();
    const onError = vi.fn();
    let calls = 0;
    const processed: string[] = [];
    const handle = verifier.handler(
      async (event) => {
        calls++;
        if (calls === 1) throw new Error("database down");
        processed.push(String(event.type));
      },
      { onError },
    );
    const first = await signed(nodeEntry, body);
    const failed = await handle(post(first.headers));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: "webhook handler failed" });
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: "database down" }), {
      webhookId: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    });
    // The sender retries with the same id and a fresh timestamp and signature.
    const retry = await nodeEntry.sign({
      webhookSecret: SECRET,
      body,
      id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
      timestamp: NOW_S + 5,
    });
    expect((await handle(post(retry))).status).toBe(200);
    // A further copy of the same message is acknowledged without running the handler again.
    const again = await handle(post(retry));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(processed).toEqual(["evaluation-completed"]);
    expect(calls).toBe(2);
  });

  it("a failing listener fails the delivery too", async () => {
    const verifier = make();
    verifier.on("evaluation-completed", () => {
      throw new Error("listener failed");
    });
    const { headers } = await signed(nodeEntry, body);
    expect((await verifier.handler(undefined, { onError: () => {} })(post(headers))).status).toBe(500);
    verifier.off("evaluation-completed");
    expect((await verifier.handler()(post(headers))).status).toBe(200);
  });

  it("answers 409 to a copy that arrives while the first is still being handled", async () => {
    const verifier = make();
    let release!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handle = verifier.handler(() => {
      started();
      return gate;
    });
    const { headers } = await signed(nodeEntry, body);
    const first = handle(post(headers));
    await running;
    expect((await handle(post(headers))).status).toBe(409);
    release();
    expect((await first).status).toBe(200);
  });

  it("answers every refusal with the same bare 400, whatever check failed", async () => {
    const verifier = make();
    const refused: string[] = [];
    const handle = verifier.handler(() => {}, { onRefused: (error) => refused.push(error.reason) });
    const { headers } = await signed(nodeEntry, body);
    const stale = await nodeEntry.sign({ webhookSecret: SECRET, body, timestamp: NOW_S - 3600 });
    const requests = [
      post({ ...headers, "webhook-signature": "v1,AAAA" }),
      post(stale),
      post({ "webhook-id": "x" }),
      post(headers, `${body} `),
    ];
    const bodies = new Set<string>();
    for (const request of requests) {
      const response = await handle(request);
      expect(response.status).toBe(400);
      bodies.add(await response.text());
    }
    expect([...bodies]).toEqual(['{"error":"invalid webhook"}']);
    expect(refused).toEqual(["bad_signature", "timestamp_too_old", "missing_headers", "bad_signature"]);
  });

  it("answers 405 to other methods and 413 to bodies over the limit, declared or streamed", async () => {
    const refused: string[] = [];
    const handle = make().handler(() => {}, {
      maxBodyBytes: 100,
      onRefused: (error) => refused.push(error.reason),
    });
    expect((await handle(new Request("http://localhost/", { method: "GET" }))).status).toBe(405);
    const { headers } = await signed(nodeEntry, body);
    expect((await handle(post({ ...headers, "content-length": "5000" }))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(50));
        controller.close();
      },
    });
    const streamed = new Request("http://localhost/", {
      method: "POST",
      headers,
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect((await handle(streamed)).status).toBe(413);
    const empty = new Request("http://localhost/", { method: "POST", headers });
    expect((await handle(empty)).status).toBe(400);
    expect(refused).toEqual(["body_too_large", "body_too_large", "bad_signature"]);
  });

  it("reports a store failure through onError (console.error by default) and answers 500", async () => {
    const store = {
      claim: async () => {
        throw new Error("redis unreachable");
      },
      release: async () => {},
    };
    const verifier = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore: store });
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const { headers } = await signed(nodeEntry, body);
      expect((await verifier.handler()(post(headers))).status).toBe(500);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("reports a release failure too: the retry would otherwise look like a replay", async () => {
    const store = {
      claim: async () => true,
      release: async () => {
        throw new Error("release failed");
      },
    };
    const verifier = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore: store });
    const errors: string[] = [];
    const handle = verifier.handler(
      () => {
        throw new Error("handler failed");
      },
      { onError: (error) => errors.push((error as Error).message) },
    );
    const { headers } = await signed(nodeEntry, body);
    expect((await handle(post(headers))).status).toBe(500);
    expect(errors).toEqual(["handler failed", "release failed"]);
  });
});

describe("an authentic delivery is never refused for its body: every plausible shape is answered 200", () => {
  const shapes: [string, string | Uint8Array][] = [
    ["only the documented fields", JSON.stringify({ status: "completed", issues: [], metadata: {} })],
    [
      "flat, with a type",
      JSON.stringify({ type: "evaluation-completed", status: "completed", issues: [{}] }),
    ],
    [
      "under data, issues without issueId, severity, category or message",
      JSON.stringify({
        type: "evaluation-completed",
        data: { status: "completed", issues: [{ commentId: "c" }] },
      }),
    ],
    [
      "fields of unexpected types",
      JSON.stringify({ type: "evaluation-completed", data: { status: 1, issues: {} } }),
    ],
    ["an unknown type", JSON.stringify({ type: "promotion-archived", promotionId: "p" })],
    ["JSON that is not an object", "[1,2,3]"],
    ["text that is not JSON", "maintenance"],
    ["bytes that are not UTF-8", Uint8Array.of(0xff, 0xfe)],
  ];

  it.each(shapes)("%s", async (_name, payload) => {
    const warnings: unknown[] = [];
    const received: WebhookEvent[] = [];
    const verifier = createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      onWarning: (warning) => warnings.push(warning),
    });
    const { headers } = await signed(nodeEntry, payload);
    const response = await verifier.handler((event) => {
      received.push(event);
    })(post(headers, payload as BodyInit));
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
    // The replay claim still holds: the same delivery again is a duplicate, not processed twice.
    const again = await verifier.handler(() => {
      throw new Error("must not run");
    })(post(headers, payload as BodyInit));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    if (received[0]?.type === null) expect(warnings).toHaveLength(1);
  });
});

describe("a Request whose body something read first is answered 500 through onError, naming the fix", () => {
  /** Ways a framework leaves a Request before the handler sees it (Hono after `c.req.json()`, ...). */
  const READ_FIRST: [string, (request: Request) => Promise<unknown>][] = [
    ["read to its end (c.req.json())", (request) => request.json()],
    ["read as text", (request) => request.text()],
    ["locked by a reader that read nothing", async (request) => request.body?.getReader()],
    [
      "locked by a reader that read part of it",
      async (request) => {
        await request.body?.getReader().read();
      },
    ],
  ];

  it.each(READ_FIRST)("a body %s", async (_, readFirst) => {
    const onError = vi.fn();
    const onRefused = vi.fn();
    const handled = vi.fn();
    const handle = make().handler(handled, { onError, onRefused });
    const { headers } = await signed(nodeEntry, body);
    const request = post(headers);
    await readFirst(request);
    const response = await handle(request);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "webhook handler failed" });
    expect(onError).toHaveBeenCalledTimes(1);
    const [error] = onError.mock.calls[0] as [WebhookVerificationError];
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.reason).toBe("parsed_body");
    expect(error.message).toContain("verify before parsing");
    expect(error.message).toContain("c.req.raw");
    expect(handled).not.toHaveBeenCalled();
    expect(onRefused).not.toHaveBeenCalled();
  });
});
