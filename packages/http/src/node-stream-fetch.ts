/**
 * A `fetch` for Node that sends a request whose `init.body` is a `ReadableStream` through `node:http`
 * / `node:https`, and every other request through the platform's `fetch`. On Node, `createHttpClient`
 * sends stream bodies through it unless given a `fetch` (see `stream-fetch.node.ts`), so every client
 * of the SDK sends upload chunks this way on Node; it is exported to wrap it in a `fetch` of one's own.
 *
 * Why: Node's `fetch` (undici) moves a stream body through several Web Streams hops per piece. For a
 * large upload that work competes for the CPU with reading the source, and costs throughput and CPU
 * (measured: `stream` against `stream-fetch` in `bench/results/upload-chunker.md`). Here each piece
 * is written to the socket as it is, with the socket's backpressure, as a plain `node:http` client
 * would. The AWS SDK makes the same choice on Node (its `NodeHttpHandler`).
 *
 * It behaves as `fetch` does where the SDK depends on it: it resolves once the response's headers
 * arrive (even while the body is still being sent; the rest of the body is then cancelled), a
 * connection failure rejects with a `TypeError` whose `cause` carries the system error `code`
 * (`ECONNREFUSED`, `ECONNRESET`, ...), and an aborted `signal` rejects with the signal's reason and
 * tears the connection down. It does not follow redirects (a 3xx is returned as it is) and keeps no
 * cookies or cache: the SDK's services never ask for either.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** `fetch`, with stream bodies sent through `node:http` (see the module comment). */
export const nodeStreamFetch: typeof fetch = (input, init) => {
  // Only a stream handed over as `init.body` (how the SDK sends an upload chunk): a `Request`'s own
  // body is always a stream, even one made from a JSON string, and such requests stay on `fetch`.
  const body = init?.body;
  if (!(body instanceof ReadableStream)) return fetch(input, init);
  const given = input instanceof Request ? input : undefined;
  // The request's parts are read here rather than through `new Request(input, init)`, which would
  // take the stream over (and proxy it) before a byte is sent.
  return sendStream({
    url: given ? given.url : String(input),
    method: (init?.method ?? given?.method ?? "GET").toUpperCase(),
    headers: new Headers(init?.headers ?? given?.headers),
    body,
    signal: init?.signal ?? given?.signal,
  });
};

interface StreamRequest {
  url: string;
  method: string;
  headers: Headers;
  body: ReadableStream<Uint8Array>;
  signal: AbortSignal | null | undefined;
}

function sendStream({ url: href, method, headers: given, body, signal }: StreamRequest): Promise<Response> {
  let url: URL;
  try {
    url = new URL(href);
  } catch (error) {
    return Promise.reject(new TypeError("fetch failed", { cause: error }));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new TypeError(`fetch failed: ${url.protocol} is not supported`));
  }
  if (signal?.aborted) return Promise.reject(signal.reason);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = send(url, { method, headers: Object.fromEntries(given) });
    const reader = body.getReader();
    let settled = false;
    const fail = (reason: unknown) => {
      void reader.cancel(reason).catch(() => {});
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      reject(reason);
    };
    function onAbort() {
      outgoing.destroy();
      fail(signal!.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    outgoing.on("error", (error) => fail(new TypeError("fetch failed", { cause: error })));
    outgoing.on("response", (incoming) => {
      if (settled) {
        incoming.destroy();
        return;
      }
      settled = true;
      // The body may still be going out (an early answer): nothing more of it is wanted.
      void reader.cancel().catch(() => {});
      signal?.removeEventListener("abort", onAbort);
      resolve(toResponse(incoming, method, signal));
    });
    void pump(reader, outgoing).catch((error: unknown) => {
      // A failed body read is the caller's stream failing: the request cannot be completed.
      outgoing.destroy();
      fail(error);
    });
  });
}

/** Writes every piece as it comes, waiting for the socket to drain when its buffer is full. */
async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, outgoing: ClientRequest): Promise<void> {
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (outgoing.destroyed) return;
    if (!outgoing.write(value)) await drained(outgoing);
  }
  if (!outgoing.destroyed) outgoing.end();
}

/**
 * Resolves when the socket takes more, or the request is gone (a failure is reported by the request's
 * own `error` listener). Both listeners go once either fires: one pair per piece would pile up.
 */
function drained(outgoing: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}

function toResponse(
  incoming: IncomingMessage,
  method: string,
  signal: AbortSignal | null | undefined,
): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = incoming.statusCode ?? 0;
  // A body is not allowed for these; the platform's Response refuses one.
  const empty = method === "HEAD" || status === 204 || status === 205 || status === 304;
  if (empty) incoming.resume();
  // Aborting while the body is read tears the connection down, as fetch does.
  const onAbort = () => incoming.destroy(signal!.reason as Error);
  signal?.addEventListener("abort", onAbort, { once: true });
  incoming.once("close", () => signal?.removeEventListener("abort", onAbort));
  return new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
    status,
    statusText: incoming.statusMessage ?? "",
    headers,
  });
}
