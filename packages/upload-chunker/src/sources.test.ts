import { ValidationError } from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { iterableOf, patterned, webStreamOf } from "../test/support/uploads.js";
import { MAX_PIECE } from "./pieces.js";
import { openSource } from "./sources.js";
import { fromStream } from "./stream-source.js";

async function collect(iterator: AsyncIterator<Uint8Array>): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  for (let s = await iterator.next(); !s.done; s = await iterator.next()) pieces.push(s.value);
  return pieces;
}

function joined(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("a stream is read once, keeping only the chunk in flight and the one read ahead", () => {
  it("any piece sizes and chunk sizes give back the exact bytes of each range (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 * MAX_PIECE }),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1024, max: 2 * MAX_PIECE })), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        async (anySize, pieceSizes, chunks, iterable) => {
          // Only byte-sized pieces: keep the stream short, or the test measures the Blob of 10^6 parts.
          const size = pieceSizes.every((p) => p <= 64) ? Math.min(anySize, 20_000) : anySize;
          const chunk = Math.ceil(size / chunks);
          const bytes = patterned(size, size);
          const src = openSource(
            fromStream(iterable ? iterableOf(bytes, pieceSizes) : webStreamOf(bytes, pieceSizes)),
            size,
          );
          for (let at = 0; at < size; at += chunk) {
            const end = Math.min(size, at + chunk);
            await src.load(at, end);
            src.prefetch(end + chunk);
            const pieces = await collect(src.range(at, end).pieces());
            expect(pieces.every((p) => p.length <= MAX_PIECE)).toBe(true);
            const expected = Buffer.from(bytes.subarray(at, end));
            expect(expected.equals(joined(pieces))).toBe(true);
            expect(
              expected.equals(new Uint8Array(await (src.range(at, end).whole() as Blob).arrayBuffer())),
            ).toBe(true);
            src.release(end);
            expect(src.floor).toBe(end);
          }
          await src.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it("gives back the exact bytes after a release past every byte held (a resume, no read-ahead)", async () => {
    // Releasing past the bytes held drops the slab holding them, part-filled: the next slab must still
    // start at a multiple of MAX_PIECE, or the pieces after it are cut from the wrong offsets.
    const size = 4 * MAX_PIECE;
    const bytes = patterned(size, 7);
    for (const [held, resumeAt] of [
      [65_536, 2 * MAX_PIECE], // the fingerprint's 64 KiB, then a resume at 2 MiB
      [1.5 * MAX_PIECE, 1.5 * MAX_PIECE], // a chunk of 1.5 MiB sent with no read-ahead
    ]) {
      const src = openSource(fromStream(webStreamOf(bytes, [100_000])), size);
      await src.load(0, held!);
      src.release(resumeAt!);
      await src.load(resumeAt!, size);
      const pieces = await collect(src.range(resumeAt!, size).pieces());
      expect(Buffer.from(bytes.subarray(resumeAt!)).equals(joined(pieces))).toBe(true);
      await src.close();
    }
  });

  it("a stream may reuse the buffer it yielded once the next piece is asked for (README, Memory bound)", async () => {
    // The natural way to read a file into a stream: one 1 MiB buffer, filled again for every piece.
    // Whole, aligned MiB pieces are exactly what holding views instead of copies would corrupt.
    const size = 4 * MAX_PIECE;
    const bytes = patterned(size, 9);
    const buffer = new Uint8Array(MAX_PIECE);
    async function* reader() {
      for (let at = 0; at < size; at += MAX_PIECE) {
        buffer.set(bytes.subarray(at, at + MAX_PIECE));
        yield buffer;
      }
    }
    const src = openSource(fromStream(reader()), size);
    const chunk = 2 * MAX_PIECE;
    for (let at = 0; at < size; at += chunk) {
      await src.load(at, at + chunk);
      src.prefetch(size);
      // Twice: a retried chunk is sent again from the bytes held.
      for (const _attempt of [1, 2]) {
        const sent = joined(await collect(src.range(at, at + chunk).pieces()));
        expect(Buffer.from(bytes.subarray(at, at + chunk)).equals(sent)).toBe(true);
      }
      src.release(at + chunk);
    }
    await src.close();
  });

  it("a range before the released floor is refused", async () => {
    const src = openSource(fromStream(webStreamOf(patterned(100))), 100);
    await src.load(0, 50);
    src.release(50);
    expect(() => src.range(0, 10)).toThrow(ValidationError);
    await expect(src.load(10, 20)).rejects.toThrow(/cannot be sent again/);
  });

  it("a stream producing something other than bytes is refused", async () => {
    async function* words() {
      yield "text" as unknown as Uint8Array;
    }
    const src = openSource(fromStream(words()), 4);
    await expect(src.load(0, 4)).rejects.toThrow(/not bytes/);
  });

  it("ArrayBuffer views and typed arrays are read without a copy", async () => {
    const backing = patterned(64);
    const view = new Uint16Array(backing.buffer, 8, 8);
    const src = openSource(view);
    expect(src.size).toBe(16);
    const [piece] = await collect(src.range(0, 16).pieces());
    expect(piece!.buffer).toBe(backing.buffer);
    expect(piece).toEqual(backing.subarray(8, 24));
    expect(src.range(2, 4).whole()).toEqual(backing.subarray(10, 12));
  });
});
