import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyIdOf } from "./index.js";

describe("keyIdOf names a key's budget without holding the key", () => {
  it("is stable, 64 bits of hex, and contains no run of the key (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 80 }), (key) => {
        const id = keyIdOf(key);
        expect(id).toMatch(/^k[0-9a-f]{16}$/);
        expect(keyIdOf(key)).toBe(id);
        // The id is hex: a key with a long enough non-hex run cannot appear in it.
        if (/[g-z]{4}/i.test(key)) expect(id).not.toContain(key);
      }),
    );
  });

  it("tells keys apart that differ in one character or in length", () => {
    expect(keyIdOf("sk_live_key_1")).not.toBe(keyIdOf("sk_live_key_2"));
    expect(keyIdOf("sk_live_key_1")).not.toBe(keyIdOf("sk_live_key_1 "));
  });
});
