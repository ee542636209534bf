import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ed25519Pair, NOW_MS, refusal, SECRET, sampleEvent, signed } from "../test/support/fixtures.js";
import { createWebhookVerifier, type FetchWebhookVerifier } from "./fetch.js";
import * as nodeEntry from "./index.node.js";

const body = JSON.stringify(sampleEvent());

function post(headers: Record<string, string>, payload: BodyInit = body): Request {
  return new Request("http://localhost/webhooks", { method: "POST", headers, body: payload });
}

function make(): FetchWebhookVerifier {
  return createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
}

/** Every module reachable from `entry` through relative imports of values (type-only imports leave nothing in a bundle). */
function moduleGraph(entry: string): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(
      /^(?:import|export) (?!type )[^;]*?from\s+"(\.[^"]+)"/gms,
    )) {
      visit(resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts")));
    }
  };
  visit(join(import.meta.dirname, entry));
  return [...files].map((file) => file.slice(import.meta.dirname.length + 1));
}

describe("the Fetch entry verifies a Request as the main entry does", () => {
  it("verifies, returns the typed event, and refuses a replay of the id", async () => {
    const verifier = make();
    const { headers } = await signed(nodeEntry, body);
    const event = await verifier.verify(post(headers));
    expect(event.type).toBe("evaluation-completed");
    expect((await refusal(verifier.verify(post(headers)))).reason).toBe("replayed");
    await verifier.release("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
    const delivery = await verifier.verifyDelivery(post(headers));
    expect(delivery).toMatchObject({ id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", warnings: [] });
  });

  it("checks the signature and timestamp alone with verifySignature, returning the bytes", async () => {
    const { headers } = await signed(nodeEntry, body);
    const verified = await make().verifySignature(post(headers));
    expect(new TextDecoder().decode(verified.body as Uint8Array)).toBe(body);
    expect((await refusal(make().verify(post(headers, `${body} `)))).reason).toBe("bad_signature");
  });

  it("reads webhook-* headers, else svix-*, and names a missing one", async () => {
    const { headers } = await signed(nodeEntry, body);
    const svix = {
      "svix-id": headers["webhook-id"],
      "svix-timestamp": headers["webhook-timestamp"],
      "svix-signature": headers["webhook-signature"],
    };
    expect((await make().verify(post(svix))).type).toBe("evaluation-completed");
    const { "webhook-signature": _, ...unsigned } = headers;
    const error = await refusal(make().verify(post(unsigned)));
    expect(error.reason).toBe("missing_headers");
    expect(error.message).toContain("The delivery has no webhook-signature header.");
    expect(error.webhookId).toBe("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
  });

  it("refuses a Request whose body was read already, naming the fix", async () => {
    const { headers } = await signed(nodeEntry, body);
    const request = post(headers);
    await request.text();
    const error = await refusal(make().verify(request));
    expect(error.reason).toBe("parsed_body");
    expect(error.message).toContain("c.req.raw");
  });

  it("verifies v1a (Ed25519) signatures with a whpk_ key", async () => {
    const { secretKey, publicKey } = ed25519Pair();
    const headers = await nodeEntry.sign({ webhookSecret: secretKey, body, timestamp: NOW_MS / 1000 });
    const verifier = createWebhookVerifier({ webhookSecret: publicKey, now: () => NOW_MS });
    expect((await verifier.verify(post(headers))).type).toBe("evaluation-completed");
  });
});

describe("the Fetch entry's handler answers as the main entry's", () => {
  it("runs the handler and the listeners, then 200; a copy 200 duplicate; altered 400", async () => {
    const verifier = make();
    const seen: string[] = [];
    verifier.on("evaluation-completed", (event) => void seen.push(`listener ${event.data.status}`));
    const onRefused = vi.fn();
    const handle = verifier.handler((event) => void seen.push(`fn ${event.type}`), { onRefused });
    const { headers } = await signed(nodeEntry, body);
    const first = await handle(post(headers));
    expect([first.status, await first.json()]).toEqual([200, { received: true }]);
    expect(seen).toEqual(["fn evaluation-completed", "listener completed"]);
    const copy = await handle(post(headers));
    expect([copy.status, await copy.json()]).toEqual([200, { received: true, duplicate: true }]);
    const altered = await nodeEntry.sign({
      webhookSecret: SECRET,
      body,
      id: "msg_other",
      timestamp: NOW_MS / 1000,
    });
    const forged = await handle(post(altered, `${body} `));
    expect([forged.status, await forged.json()]).toEqual([400, { error: "invalid webhook" }]);
    expect(onRefused.mock.calls[0]?.[0]).toMatchObject({ reason: "bad_signature" });
  });

  it("answers 500 when fn throws and releases the id, 405 to another method, 413 over the cap", async () => {
    let calls = 0;
    const onError = vi.fn();
    const handle = make().handler(
      () => {
        if (++calls === 1) throw new Error("database down");
      },
      { onError, maxBodyBytes: 1024 },
    );
    const { headers } = await signed(nodeEntry, body);
    expect((await handle(post(headers))).status).toBe(500);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: "database down" }), {
      webhookId: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    });
    expect((await handle(post(headers))).status).toBe(200);
    expect((await handle(new Request("http://localhost/webhooks"))).status).toBe(405);
    const large = JSON.stringify(sampleEvent({ note: "x".repeat(2048) }));
    const big = await nodeEntry.sign({
      webhookSecret: SECRET,
      body: large,
      id: "msg_big",
      timestamp: NOW_MS / 1000,
    });
    expect((await handle(post(big, large))).status).toBe(413);
  });

  it("answers 500 through onError when a framework read the body first", async () => {
    const onError = vi.fn();
    const { headers } = await signed(nodeEntry, body);
    const request = post(headers);
    await request.json();
    expect((await make().handler(undefined, { onError })(request)).status).toBe(500);
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ reason: "parsed_body" });
  });
});

describe("a Fetch-only bundle carries only what a Fetch handler runs", () => {
  it("the entry's module graph has no reader of other shapes and no Node handler", () => {
    const graph = moduleGraph("fetch.ts");
    expect(graph).toContain("handler.ts");
    for (const file of ["headers.ts", "body.ts", "node-handler.ts", "crypto-node.ts", "bind.ts", "sign.ts"]) {
      expect(graph).not.toContain(file);
    }
  });

  it("a main-entry verifier fits where a Fetch one is expected", async () => {
    const full: FetchWebhookVerifier = nodeEntry.createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
    });
    const { headers } = await signed(nodeEntry, body);
    expect((await full.verify(post(headers))).type).toBe("evaluation-completed");
  });
});
