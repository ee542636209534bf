/**
 * Reading a body up to a size, shared by the HTTP client (an answer's body) and webhook-verify (a
 * delivery's body): one loop over pieces from any source, so the cap is counted the same way.
 * @packageDocumentation
 */

/** The next piece of a body: a stream reader's `read()`, a Node request iterator's `next()`, or a wrapper. */
export type NextPiece = () => Promise<
  { done: true; value?: unknown } | { done?: false; value: Uint8Array | string }
>;

/** What {@link readCapped} read. */
export interface CappedRead {
  /** The bytes read, the piece that went over the cap included. */
  bytes: Uint8Array;
  /** False when the body holds more than the cap: reading stopped, the caller stops its source. */
  complete: boolean;
}

/**
 * Reads pieces from `next` (a text piece as UTF-8) into one byte array until the body ends or holds
 * more than `maxBytes`. A body of one piece is returned as it is, without a copy. What `next` throws
 * (a deadline, a stalled body) goes to the caller, who cancels its source.
 */
export async function readCapped(next: NextPiece, maxBytes: number): Promise<CappedRead> {
  const pieces: Uint8Array[] = [];
  let length = 0;
  let complete = true;
  for (;;) {
    const piece = await next();
    if (piece.done) break;
    const bytes = typeof piece.value === "string" ? new TextEncoder().encode(piece.value) : piece.value;
    pieces.push(bytes);
    length += bytes.length;
    if (length > maxBytes) {
      complete = false;
      break;
    }
  }
  if (pieces.length === 1) return { bytes: pieces[0]!, complete };
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const piece of pieces) {
    bytes.set(piece, offset);
    offset += piece.length;
  }
  return { bytes, complete };
}
