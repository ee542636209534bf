/**
 * A deterministic payload of any size, made the same way in every runtime and in the Node test, so the
 * test knows the SHA-256 the server must hold without the bytes crossing the process boundary.
 */

const PIECE = 1024 * 1024;

/** Fills `target` with the payload's bytes starting at `offset` (a multiplicative hash of the position). */
export function fillPayload(target: Uint8Array, offset: number): void {
  for (let i = 0; i < target.length; i++) target[i] = Math.imul(offset + i, 2654435761) >>> 24;
}

/** The payload as a web `ReadableStream` of 1 MiB pieces, produced only as the reader pulls. */
export function payloadStream(size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= size) {
          controller.close();
          return;
        }
        const piece = new Uint8Array(Math.min(PIECE, size - offset));
        fillPayload(piece, offset);
        offset += piece.length;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The payload as a `Blob` (what a browser user's file input gives). */
export function payloadBlob(size: number): Blob {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < size; offset += PIECE) {
    const piece = new Uint8Array(Math.min(PIECE, size - offset));
    fillPayload(piece, offset);
    parts.push(piece);
  }
  return new Blob(parts as BlobPart[]);
}
