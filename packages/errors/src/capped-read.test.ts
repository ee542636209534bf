import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readCapped } from "./internal.js";

/** A `next` over `pieces`, as a stream reader's `read` gives them. */
function reader(pieces: (Uint8Array | string)[]) {
  let at = 0;
  let reads = 0;
  const next = async () => {
    reads++;
    return at < pieces.length ? { done: false as const, value: pieces[at++]! } : { done: true as const };
  };
  return { next, reads: () => reads };
}

describe("a body is read up to its cap, and no further", () => {
  it("keeps every byte of a body within the cap; stops at the piece that crosses it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.nat({ max: 300 }),
        async (pieces, cap) => {
          const whole = pieces.flatMap((piece) => [...piece]);
          const source = reader(pieces);
          const { bytes, complete } = await readCapped(source.next, cap);
          expect(complete).toBe(whole.length <= cap);
          if (complete) {
            expect([...bytes]).toEqual(whole);
            expect(source.reads()).toBe(pieces.length + 1);
          } else {
            // The bytes read are a prefix of the body, just over the cap: nothing past that piece is asked for.
            expect(bytes.length).toBeGreaterThan(cap);
            expect([...bytes]).toEqual(whole.slice(0, bytes.length));
            expect(source.reads()).toBeLessThanOrEqual(pieces.length);
          }
        },
      ),
    );
  });
  it("a text piece counts as its UTF-8 bytes; a single piece is returned without a copy", async () => {
    const piece = new Uint8Array([1, 2, 3]);
    expect((await readCapped(reader([piece]).next, 3)).bytes).toBe(piece);
    const text = await readCapped(reader(["é", "a"]).next, 3);
    expect([...text.bytes]).toEqual([0xc3, 0xa9, 0x61]);
    expect((await readCapped(reader(["éé"]).next, 3)).complete).toBe(false);
  });
});
