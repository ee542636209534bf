/**
 * Cutting a file into chunks and turning one chunk into a request body.
 */
import type { SourceRange } from "./sources.js";

/** The `Content-Range` of the bytes `[start, end)` of a file of `total` bytes (inclusive end on the wire). */
export function contentRange(start: number, end: number, total: number): string {
  return `bytes ${start}-${end - 1}/${total}`;
}

/** The end (exclusive) of the chunk starting at `offset`: at most `chunkSize` bytes, never past `total`. */
export function chunkEnd(offset: number, chunkSize: number, total: number): number {
  return Math.min(total, offset + chunkSize);
}

/**
 * Whether this runtime can send a `ReadableStream` as a request body (`duplex: "half"`). The test is
 * the one the Fetch standard's authors recommend: a runtime that knows `duplex` reads the option, and
 * one that does not would turn the stream into the text "[object ReadableStream]" with a
 * `Content-Type` header.
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
    return duplexAccessed && !hasContentType;
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
  const agent = typeof navigator === "undefined" ? "" : (navigator.userAgent ?? "");
  return supportsRequestStreams() && !/^Mozilla\//.test(agent);
}

/**
 * The body of one chunk attempt. Streamed: a `ReadableStream` pulling the range's pieces only when
 * the transport asks for more (high-water mark 0), so `onSent` counts bytes actually taken by the
 * network and nothing is read far ahead of the socket. Otherwise the whole range as a Blob or view.
 */
export function chunkBody(range: SourceRange, streamed: boolean, onSent: (bytes: number) => void): BodyInit {
  if (!streamed) return range.whole() as BodyInit;
  const pieces = range.pieces();
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
