import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kindOf } from "./kind.js";

/** One value of every kind `typeof` and JSON tell apart. */
const EVERY_KIND: [unknown, string][] = [
  [undefined, "undefined"],
  [null, "null"],
  [[1], "an array"],
  [{}, "an object"],
  ["x", "a string"],
  [1, "a number"],
  [1n, "a bigint"],
  [true, "a boolean"],
  [Symbol("s"), "a symbol"],
  [() => 1, "a function"],
];

describe("a value's kind is named with the right article", () => {
  it.each(EVERY_KIND)("%s is %s", (value, kind) => {
    expect(kindOf(value)).toBe(kind);
  });

  it("no kind of any value reads 'a' before a vowel or 'an' before a consonant", () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
        (value) => {
          const kind = kindOf(value);
          expect(kind).not.toMatch(/^a [aeiou]|^an [^aeiou]/);
        },
      ),
    );
  });
});
