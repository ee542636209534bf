import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caught, fileVersionBody, refusal, textBody, variationsBody } from "../test/support/fixtures.js";
import { MAX_DETAILS_LENGTH } from "./limits.js";
import { validateCreatePromotion, validateNewVersion, validateSubmit } from "./validate.js";

const text = (min: number, max: number) =>
  fc.string({ minLength: min, maxLength: max, unit: "grapheme-ascii" });

describe("details: at most 1500 characters at top level, in each variation and in a new version", () => {
  it("refuses any longer details at its path, naming the limit and the length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_DETAILS_LENGTH + 1, max: 4000 }),
        fc.constantFrom("top", "variation", "version"),
        fc.integer({ min: 0, max: 19 }),
        (length, where, index) => {
          const details = "d".repeat(length);
          const n = Math.max(2, index + 1);
          let run: () => unknown;
          let path: string;
          if (where === "top") {
            run = () => validateCreatePromotion(textBody({ details }));
            path = "details";
          } else if (where === "variation") {
            const body = variationsBody(n);
            body.variations![index]!.details = details;
            run = () => validateCreatePromotion(body);
            path = `variations.${index}.details`;
          } else {
            run = () => validateNewVersion(fileVersionBody({ details }));
            path = "details";
          }
          const error = caught(run);
          expect(error.fieldErrors.map((f) => f.field)).toEqual([path]);
          expect(error.constraintViolations).toEqual([
            { type: "constraint_violation", constraint: "max_length", limit: 1500, actual: length },
          ]);
        },
      ),
    );
  });
  it("accepts any details up to 1500 characters everywhere", () => {
    fc.assert(
      fc.property(text(0, MAX_DETAILS_LENGTH), (details) => {
        const body = variationsBody(2, { details });
        body.variations![1]!.details = details;
        expect(() => validateCreatePromotion(body)).not.toThrow();
        expect(() => validateNewVersion(fileVersionBody({ details }))).not.toThrow();
      }),
    );
  });
});

const tagChar = fc.constantFrom(..."abcXYZ019-_ .".split(""));
const tagName = fc.string({ unit: tagChar, minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0);

describe("tags: trimmed, deduplicated, at most 20 of at most 255 characters, Var- and TESTING reserved", () => {
  it("sends the trimmed names once each, in first-seen order", () => {
    fc.assert(
      fc.property(
        fc.array(tagName, { maxLength: 40 }),
        fc.array(fc.constantFrom(" ", "\t"), { maxLength: 3 }),
        (names, pad) => {
          const padded = names.map((n) => `${pad.join("")}${n}${pad.join("")}`);
          const expected = [...new Set(names.map((n) => n.trim()))].filter((n) => !n.startsWith("Var-"));
          fc.pre(expected.length === new Set(names.map((n) => n.trim())).size);
          if (expected.length <= 20) {
            expect(validateCreatePromotion(textBody({ tags: padded })).tags).toEqual(expected);
          } else {
            const error = caught(() => validateCreatePromotion(textBody({ tags: padded })));
            expect(error.fieldErrors.map((f) => f.field)).toEqual(["tags"]);
            expect(error.constraintViolations[0]).toMatchObject({
              constraint: "max_items",
              limit: 20,
              actual: expected.length,
            });
          }
        },
      ),
    );
  });
  it("counts duplicates once: 25 entries naming 20 tags are accepted", () => {
    const names = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
    const body = textBody({ tags: [...names, " tag-0", "tag-1 ", "tag-2", "tag-3", "tag-4"] });
    expect(validateCreatePromotion(body).tags).toEqual(names);
    expect(body.tags).toHaveLength(25); // the caller's object is not changed
  });
  it("refuses a name over 255 characters after trimming, at its index", () => {
    fc.assert(
      fc.property(fc.integer({ min: 256, max: 600 }), fc.integer({ min: 0, max: 5 }), (length, index) => {
        const tags = Array.from({ length: 6 }, (_, i) => `t${i}`);
        tags[index] = ` ${"x".repeat(length)} `;
        const error = caught(() => validateCreatePromotion(textBody({ tags })));
        expect(error.fieldErrors.map((f) => f.field)).toEqual([`tags.${index}`]);
        expect(error.constraintViolations[0]).toMatchObject({
          constraint: "max_length",
          limit: 255,
          actual: length,
        });
      }),
    );
    expect(() => validateCreatePromotion(textBody({ tags: [` ${"x".repeat(255)} `] }))).not.toThrow();
  });
  it("refuses reserved names, empty names and non-strings", () => {
    fc.assert(
      fc.property(tagName, (suffix) => {
        expect(
          refusal(() => validateCreatePromotion(textBody({ tags: ["ok", ` Var-${suffix}`] })))[0]?.field,
        ).toBe("tags.1");
      }),
    );
    expect(
      refusal(() => validateCreatePromotion(textBody({ tags: ["TESTING", "  ", 3] }))).map((e) => e.field),
    ).toEqual(["tags.0", "tags.1", "tags.2"]);
    // Only the names the spec reserves: other cases and a bare "Var" are ordinary names.
    expect(() =>
      validateCreatePromotion(textBody({ tags: ["testing", "var-1", "Var", "TESTING2"] })),
    ).not.toThrow();
    expect(refusal(() => validateCreatePromotion(textBody({ tags: "a,b" })))[0]?.field).toBe("tags");
  });
});

const keyChar = fc.constantFrom(..."abcXYZ019_-".split(""));
const metadataKey = fc.string({ unit: keyChar, minLength: 1, maxLength: 128 });

describe("metadata: at most 20 keys of [A-Za-z0-9_-] up to 128, values up to 1024", () => {
  it("accepts any metadata within the limits", () => {
    fc.assert(
      fc.property(fc.dictionary(metadataKey, text(0, 1024), { maxKeys: 20 }), (metadata) => {
        expect(validateCreatePromotion(textBody({ metadata })).metadata).toBe(metadata);
      }),
      { numRuns: 50 },
    );
  });
  it("refuses more than 20 keys at path metadata", () => {
    fc.assert(
      fc.property(fc.dictionary(metadataKey, text(0, 10), { minKeys: 21, maxKeys: 40 }), (metadata) => {
        const error = caught(() => validateCreatePromotion(textBody({ metadata })));
        expect(error.fieldErrors.map((f) => f.field)).toEqual(["metadata"]);
        expect(error.constraintViolations[0]).toMatchObject({
          constraint: "max_keys",
          limit: 20,
          actual: Object.keys(metadata).length,
        });
      }),
      { numRuns: 30 },
    );
  });
  it("refuses a bad key or value at metadata.<key>", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !/^[A-Za-z0-9_-]+$/.test(k)),
          fc.string({ unit: keyChar, minLength: 129, maxLength: 200 }),
        ),
        (key) => {
          const error = caught(() =>
            validateCreatePromotion(textBody({ metadata: { ok: "1", [key]: "v" } })),
          );
          expect(error.fieldErrors.map((f) => f.field)).toEqual([`metadata.${key}`]);
        },
      ),
    );
    const long = caught(() => validateCreatePromotion(textBody({ metadata: { k: "v".repeat(1025), n: 5 } })));
    expect(long.fieldErrors.map((f) => f.field)).toEqual(["metadata.k", "metadata.n"]);
    expect(long.constraintViolations).toEqual([
      { type: "constraint_violation", constraint: "max_length", limit: 1024, actual: 1025 },
    ]);
    expect(refusal(() => validateCreatePromotion(textBody({ metadata: ["a"] })))[0]?.field).toBe("metadata");
  });
  it("checks keys valibot's record would skip (constructor, prototype)", () => {
    const error = caught(() =>
      validateCreatePromotion(textBody({ metadata: JSON.parse('{"constructor": 1, "prototype": "x"}') })),
    );
    expect(error.fieldErrors.map((f) => f.field)).toEqual(["metadata.constructor"]);
  });
});

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const day = fc.date({
  min: new Date("1970-01-01T00:00:00Z"),
  max: new Date("2999-12-31T23:59:59Z"),
  noInvalidDate: true,
});

describe("deadline: a calendar date or an ISO 8601 date-time; nextReviewDate: a date-time", () => {
  it("accepts every real date and every date-time with an offset", () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: -23, max: 23 }),
        fc.constantFrom(0, 30, 45),
        (date, offsetH, offsetM) => {
          const calendar = date.toISOString().slice(0, 10);
          const sign = offsetH < 0 ? "-" : "+";
          const withOffset = `${date.toISOString().slice(0, 19)}${sign}${pad(Math.abs(offsetH))}:${pad(offsetM)}`;
          expect(() => validateCreatePromotion(textBody({ deadline: calendar }))).not.toThrow();
          expect(() =>
            validateCreatePromotion(textBody({ deadline: date.toISOString(), nextReviewDate: withOffset })),
          ).not.toThrow();
          expect(() => validateSubmit({ deadline: calendar })).not.toThrow();
        },
      ),
    );
  });
  it("refuses impossible days, missing offsets and other strings", () => {
    for (const deadline of [
      "2025-02-30",
      "2025-13-01",
      "2024-02-30T10:00:00Z",
      "2025-01-31T10:00:00",
      "2025-01-31T24:00:00Z",
      "31/01/2025",
      "2025-1-3",
      "",
    ]) {
      expect(refusal(() => validateCreatePromotion(textBody({ deadline })))[0]?.field, deadline).toBe(
        "deadline",
      );
    }
    expect(() => validateCreatePromotion(textBody({ deadline: "2024-02-29" }))).not.toThrow();
    expect(refusal(() => validateCreatePromotion(textBody({ nextReviewDate: "2025-06-01" })))[0]?.field).toBe(
      "nextReviewDate",
    );
    expect(refusal(() => validateSubmit({ deadline: "tomorrow" }))[0]?.field).toBe("deadline");
    expect(refusal(() => validateSubmit("x" as never))[0]?.field).toBe("(body)");
  });
});
