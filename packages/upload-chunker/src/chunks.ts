/**
 * Cutting a file into chunks and turning one chunk into a request body.
 */
import type { RequestBody } from "@promo-review/http";
import type { SourceRange } from "./types.js";

/** The `Content-Range` of the bytes `[start, end)` of a file of `total` bytes (inclusive end on the wire). */
export function contentRange(start: number, end: number, total: number): string {
  return `bytes ${start}-${end - 1}/${total}`;
}

/** The end (exclusive) of the chunk starting at `offset`: at most `chunkSize` bytes, never past `total`. */
export function chunkEnd(offset: number, chunkSize: number, total: number): number {
  return Math.min(total, offset + chunkSize);
}

/**
 * Whether the code runs in a browser (a page or a browser worker): their `navigator.userAgent` starts
 * with `Mozilla/`. Server runtimes say who they are instead (`Node.js/..`, `Deno/..`, `Bun/..`,
 * `Cloudflare-Workers`) or have no `navigator` at all (Node 20, workerd without `global_navigator`).
 */
function inBrowser(): boolean {
  return typeof navigator !== "undefined" && /^Mozilla\//.test(navigator.userAgent ?? "");
}

/**
 * Whether this runtime can send a `ReadableStream` as a request body. A runtime that cannot turns the
 * stream into the text "[object ReadableStream]" with a `Content-Type` header. Browsers that can also
 * read the `duplex` option (the test the Fetch standard's authors recommend: Safari takes the stream
 * in a `Request` but not in `fetch`, and reads no `duplex`); Deno, Bun and workerd stream request
 * bodies without reading it.
 */
export function supportsRequestStreams(): boolean {
  try {
    let duplexAccessed = false;
    const hasContentType = new Request("http://localhost/", {
      body: new ReadableStream(),
      method: "POST",
      get duplex() {
        duplexAccessed = true;
        return "half";
      },
    } as RequestInit).headers.has("Content-Type");
    return !hasContentType && (duplexAccessed || !inBrowser());
  } catch {
    return false;
  }
}

/**
 * Whether to stream chunk bodies by default. Node, Deno, Bun and Workers stream over any HTTP
 * version. Browsers stream request bodies only over HTTP/2 or later and refuse them on HTTP/1.1, which
 * a page cannot detect before trying, so in a browser a chunk is sent as a Blob (still never read
 * into script memory for Blob sources) and progress comes once per chunk.
 */
export function streamingByDefault(): boolean {
  return !inBrowser() && supportsRequestStreams();
}

/**
 * The body of one chunk attempt. Streamed: a `ReadableStream` pulling the range's pieces only when
 * the transport asks for more (high-water mark 0), so `onSent` counts bytes actually taken by the
 * network and nothing is read far ahead of the socket. Otherwise the whole range as a Blob or view.
 * `settled` fires once the request is over: a body the transport left unfinished (an early answer, a
 * failure) then closes its pieces (and whatever they hold open, such as a file).
 */
export function chunkBody(
  range: SourceRange,
  streamed: boolean,
  onSent: (bytes: number) => void,
  settled?: AbortSignal,
): RequestBody {
  if (!streamed) return range.whole() as RequestBody;
  const pieces = range.pieces(settled);
  settled?.addEventListener("abort", () => void pieces.return?.(undefined).catch(() => {}), { once: true });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await pieces.next();
        if (done) {
          controller.close();
          return;
        }
        controller.enqueue(value);
        onSent(value.byteLength);
      },
      async cancel() {
        await pieces.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
