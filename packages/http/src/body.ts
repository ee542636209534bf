import { readCapped } from "@promo-review/errors/internal";
import { setLongTimeout } from "./timers.js";

/** How a response body is read. */
export interface ReadBodyOptions {
  /** The exchange's deadline (and the caller's abort): reading stops with its reason. */
  signal: AbortSignal;
  /** The longest gap between two pieces of the body before it counts as stalled. */
  idleTimeoutMs: number;
  /**
   * The low-speed limit: a body still arriving that averaged fewer bytes a second than this over a
   * stretch of at least `idleTimeoutMs` counts as stalled too (curl's `--speed-limit`, with
   * `idleTimeoutMs` as its `--speed-time`). 0 or absent: only the idle gap counts.
   */
  minBytesPerSecond?: number | undefined;
  /** Bytes read at most (and the piece that crossed it); the rest is cancelled (an error page can be huge). */
  limit: number;
}

/**
 * Reads a response body as text under the exchange's deadline. A body that stalls (no byte for
 * `idleTimeoutMs`, or slower than `minBytesPerSecond`) or outlives the deadline rejects with a
 * `TimeoutError` `DOMException` (or the caller's abort reason) and the rest of the body is
 * cancelled, which drops the connection. A read that only awaited `response.text()` would wait as
 * long as the server keeps the connection open.
 */
export async function readBody(response: Response, options: ReadBodyOptions): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const pace = paceWatch(options);
  let complete = false;
  try {
    const read = await readCapped(async () => {
      const piece = await nextPiece(reader, options);
      if (!piece.done) pace(piece.value.byteLength);
      return piece;
    }, options.limit);
    complete = read.complete;
    return new TextDecoder().decode(read.bytes);
  } finally {
    if (!complete) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

const now = (): number => globalThis.performance?.now() ?? Date.now();

/**
 * The low-speed limit as a function told each piece's size: it throws a `TimeoutError`
 * `DOMException` once a stretch of at least `idleTimeoutMs` averaged under `minBytesPerSecond`, and
 * starts a new stretch otherwise. Checked as pieces arrive: a body that brings none at all is the
 * idle timer's to end.
 */
function paceWatch({ idleTimeoutMs, minBytesPerSecond = 0 }: ReadBodyOptions): (bytes: number) => void {
  if (!(minBytesPerSecond > 0)) return () => {};
  let since = now();
  let bytes = 0;
  return (piece) => {
    bytes += piece;
    const elapsed = now() - since;
    if (elapsed < idleTimeoutMs) return;
    const rate = (bytes * 1000) / elapsed;
    if (rate < minBytesPerSecond) {
      throw new DOMException(
        `the response body stalled: ${bytes} bytes in ${Math.round(elapsed)} ms (${Math.round(rate)} bytes/s), under the floor of ${minBytesPerSecond} bytes/s`,
        "TimeoutError",
      );
    }
    since += elapsed;
    bytes = 0;
  };
}

function nextPiece(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  { signal, idleTimeoutMs }: ReadBodyOptions,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = (reason: unknown) => {
      cancelIdle();
      signal.removeEventListener("abort", onAbort);
      reject(reason);
    };
    const onAbort = () => stop(signal.reason);
    const cancelIdle = setLongTimeout(
      () =>
        stop(new DOMException(`the response body stalled: no byte for ${idleTimeoutMs} ms`, "TimeoutError")),
      idleTimeoutMs,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    reader.read().then(
      (result) => {
        cancelIdle();
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => stop(signal.aborted ? signal.reason : error),
    );
  });
}
