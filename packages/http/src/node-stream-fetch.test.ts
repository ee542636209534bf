import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer, globalAgent } from "node:https";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { NetworkError, TimeoutError } from "@promo-review/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TEST_TLS } from "../test/support/tls.js";
import { createHttpClient } from "./index.js";
import { nodeStreamFetch } from "./node.js";

const credentials = { apiKey: "sk_test_node", externalUserId: "u-1" };
setFlagsFromString("--expose-gc");
/** A full garbage collection on demand. */
const gc = runInNewContext("gc") as () => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0)) await close();
});

/** A server on 127.0.0.1 whose handler sees each request as it arrives (body not read for it). */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Echoes method, headers and the whole body as JSON once the body has arrived. */
function echo(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "x-seen": "yes" });
    res.end(
      JSON.stringify({ method: req.method, headers: req.headers, length: Buffer.concat(chunks).length }),
    );
  });
}

/** A stream of `count` pieces of `size` bytes, recording reads and cancellation. */
function pieces(count: number, size = 64 * 1024) {
  const seen = { read: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.read === count) return controller.close();
      seen.read++;
      controller.enqueue(new Uint8Array(size).fill(seen.read));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe("a stream body goes out through node:http; every other request through the platform's fetch", () => {
  it("sends the method, the headers and every byte, and answers as a Response", async () => {
    const url = await serve(echo);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const platform = vi.spyOn(globalThis, "fetch");
    const { stream } = pieces(40);
    const response = await nodeStreamFetch(`${url}/v1/uploads/u`, {
      method: "put",
      headers: { "content-range": "bytes 0-2621439/2621440", authorization: "Bearer x" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(platform).not.toHaveBeenCalled();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-seen")).toBe("yes");
    const seen = (await response.json()) as {
      method: string;
      headers: Record<string, string>;
      length: number;
    };
    expect(seen).toMatchObject({ method: "PUT", length: 40 * 64 * 1024 });
    expect(seen.headers).toMatchObject({
      "content-range": "bytes 0-2621439/2621440",
      authorization: "Bearer x",
    });
    // Forty pieces, each waiting for the socket to drain: no listener may be left behind per piece.
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", onWarning);
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");

    const plain = await nodeStreamFetch(`${url}/v1/channels`);
    expect(platform).toHaveBeenCalledTimes(1);
    expect(await plain.json()).toMatchObject({ method: "GET", length: 0 });
  });

  it("keeps a Request's own body (always a stream, even from a string) on the platform's fetch, and gives no body for 204", async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    const platform = vi.spyOn(globalThis, "fetch");
    const json = new Request(`${url}/x`, { method: "POST", body: '{"a":1}' });
    expect(json.body).toBeInstanceOf(ReadableStream);
    expect((await nodeStreamFetch(json)).status).toBe(204);
    expect(platform).toHaveBeenCalledTimes(1);

    const response = await nodeStreamFetch(`${url}/x`, {
      method: "POST",
      body: pieces(3).stream,
      duplex: "half",
    } as RequestInit);
    expect(platform).toHaveBeenCalledTimes(1);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });
});

describe("https: URLs go through node:https, with the certificate checks of the default agent", () => {
  it("sends every byte to a TLS server whose certificate is trusted, and refuses one that is not", async () => {
    const server = createTlsServer(TEST_TLS, echo);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/uploads/u`;
    const send = () =>
      nodeStreamFetch(url, { method: "PUT", body: pieces(8).stream, duplex: "half" } as RequestInit);

    // Not trusted: the TLS handshake fails, as fetch fails, with the reason as the cause.
    const refused = await send().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as { cause: { code: string } }).cause.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");

    // Trusted the way a user adds a CA for node:https (NODE_EXTRA_CA_CERTS does the same at startup).
    const before = globalAgent.options.ca;
    globalAgent.options.ca = TEST_TLS.cert;
    try {
      const response = await send();
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ method: "PUT", length: 8 * 64 * 1024 });
    } finally {
      globalAgent.options.ca = before;
    }
  });
});

describe("it behaves as fetch does where the SDK depends on it", () => {
  it("resolves on an early answer while the body is still going out, and cancels the rest of it", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(413, { "content-type": "application/json" });
      res.end('{"error":{"code":"PAYLOAD_TOO_LARGE","message":"no"}}');
    });
    const { stream, seen } = pieces(100_000); // 6 GiB if it were all sent
    const response = await nodeStreamFetch(`${url}/x`, {
      method: "PUT",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    await vi.waitFor(() => expect(seen.cancelled).toBe(true));
    expect(seen.read).toBeLessThan(100_000);
  });

  it("a refused connection rejects with a TypeError whose cause has the code: a NetworkError that never reached the service", async () => {
    const url = await serve(echo);
    await closers.pop()!(); // the port is now closed
    const failure = await nodeStreamFetch(`${url}/x`, {
      method: "PUT",
      body: pieces(1).stream,
      duplex: "half",
    } as RequestInit).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as { cause: { code: string } }).cause.code).toBe("ECONNREFUSED");

    const client = createHttpClient({ baseUrl: url, ...credentials, fetch: nodeStreamFetch });
    const error = await client
      .request("/x", { method: "PUT", body: pieces(1).stream })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).mayHaveReachedServer).toBe(false);
  });

  it("an abort mid-body rejects with the signal's reason, stops reading the stream and drops the connection", async () => {
    let closedByClient = false;
    const url = await serve((req) => {
      req.on("data", () => {}); // reads, never answers
      req.on("close", () => {
        closedByClient = true;
      });
    });
    const controller = new AbortController();
    const { stream, seen } = pieces(100_000);
    const sending = nodeStreamFetch(`${url}/x`, {
      method: "PUT",
      body: stream,
      duplex: "half",
      signal: controller.signal,
    } as RequestInit);
    await vi.waitFor(() => expect(seen.read).toBeGreaterThan(10));
    controller.abort();
    const error = await sending.catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(seen.cancelled).toBe(true);
    await vi.waitFor(() => expect(closedByClient).toBe(true));
    expect(seen.read).toBeLessThan(100_000);
  });

  it("a stream that fails fails the request with its own error", async () => {
    const url = await serve((req) => req.resume());
    let sent = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 3) controller.enqueue(new Uint8Array(1024));
        else controller.error(new Error("the disk went away"));
      },
    });
    const error = await nodeStreamFetch(`${url}/x`, {
      method: "PUT",
      body: broken,
      duplex: "half",
    } as RequestInit).catch((e: unknown) => e);
    expect((error as Error).message).toBe("the disk went away");
  });

  it("the http client's per-request timeout applies (a TimeoutError), though a full garbage collection runs while it waits", async () => {
    const url = await serve((req) => req.resume()); // never answers
    const client = createHttpClient({ baseUrl: url, ...credentials, fetch: nodeStreamFetch });
    // AbortSignal.any([signal, AbortSignal.timeout(ms)]) lost its timeout here on Node: the request hung.
    setTimeout(gc, 20);
    const error = await client
      .request("/x", { method: "PUT", body: pieces(2).stream, timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("a URL it cannot send to is refused as fetch refuses it", async () => {
    const body = () => pieces(1).stream;
    await expect(
      nodeStreamFetch("ftp://127.0.0.1/x", { method: "PUT", body: body(), duplex: "half" } as RequestInit),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      nodeStreamFetch("not a url", { method: "PUT", body: body(), duplex: "half" } as RequestInit),
    ).rejects.toBeInstanceOf(TypeError);
    const aborted = AbortSignal.abort();
    await expect(
      nodeStreamFetch("http://127.0.0.1:9/x", {
        method: "PUT",
        body: body(),
        duplex: "half",
        signal: aborted,
      } as RequestInit),
    ).rejects.toBe(aborted.reason);
  });
});

describe("on Node (the `node` condition of `#stream-fetch`) it is the default for stream bodies", () => {
  it("stream bodies go through node:http unless a fetch is given; other requests through the platform's fetch", async () => {
    const url = await serve(echo);
    const platform = vi.spyOn(globalThis, "fetch");
    const byDefault = createHttpClient({ baseUrl: url, ...credentials });
    const put = await byDefault.request<{ length: number }>("/x", { method: "PUT", body: pieces(4).stream });
    expect(put.data.length).toBe(4 * 64 * 1024);
    expect(platform).not.toHaveBeenCalled();
    await byDefault.request("/v1/channels");
    expect(platform).toHaveBeenCalledTimes(1);

    const given: typeof fetch = vi.fn((input, init) => fetch(input, init));
    const chosen = createHttpClient({ baseUrl: url, ...credentials, fetch: given });
    await chosen.request("/x", { method: "PUT", body: pieces(1).stream });
    expect(given).toHaveBeenCalledTimes(1);
  });
});
