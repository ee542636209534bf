import type { ValidationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { IDS, refusal, textBody, variationsBody } from "../test/support/fixtures.js";
import { validateCreatePromotion, validateNewVersion } from "./validate.js";

const fields = (run: () => unknown) => refusal(run).map((e) => e.field);

describe("text format takes content and no uploadIds", () => {
  it("accepts text with content", () => {
    expect(validateCreatePromotion(textBody())).toEqual(textBody());
  });
  it("refuses text without content", () => {
    expect(fields(() => validateCreatePromotion(textBody({ content: undefined })))).toEqual(["content"]);
  });
  it("refuses text with uploadIds", () => {
    expect(fields(() => validateCreatePromotion(textBody({ uploadIds: [IDS.upload] })))).toEqual([
      "uploadIds",
    ]);
  });
  it("refuses empty content", () => {
    expect(refusal(() => validateCreatePromotion(textBody({ content: "" })))).toEqual([
      { field: "content", message: "must not be empty" },
    ]);
  });
});

describe("file formats take uploadIds and no content", () => {
  for (const fileFormat of ["video", "audio", "image", "pdf", "document"]) {
    it(`accepts ${fileFormat} with uploadIds`, () => {
      const body = textBody({ fileFormat, content: undefined, uploadIds: [IDS.upload] });
      expect(validateCreatePromotion(body)).toBe(body);
    });
  }
  it("refuses a file format with content and without uploadIds", () => {
    expect(fields(() => validateCreatePromotion(textBody({ fileFormat: "pdf" })))).toEqual([
      "content",
      "uploadIds",
    ]);
  });
  it("refuses an empty uploadIds list, with the limit", () => {
    const body = textBody({ fileFormat: "pdf", content: undefined, uploadIds: [] });
    try {
      validateCreatePromotion(body);
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).constraintViolations).toEqual([
        { type: "constraint_violation", constraint: "min_items", limit: 1, actual: 0 },
      ]);
    }
  });
  it("refuses an unknown format, and a missing one", () => {
    expect(fields(() => validateCreatePromotion(textBody({ fileFormat: "gif" })))).toEqual(["fileFormat"]);
    expect(fields(() => validateCreatePromotion(textBody({ fileFormat: undefined })))).toEqual([
      "fileFormat",
    ]);
  });
  it("applies the same rule to a new version", () => {
    expect(validateNewVersion({ fileFormat: "text", content: "v2" })).toEqual({
      fileFormat: "text",
      content: "v2",
    });
    expect(fields(() => validateNewVersion({ fileFormat: "text", uploadIds: [IDS.upload] }))).toEqual([
      "content",
      "uploadIds",
    ]);
    expect(fields(() => validateNewVersion({ uploadIds: [IDS.upload] }))).toEqual(["fileFormat"]);
  });
});

describe("variations: 2 to 20, exclusive with top-level uploadIds, content and fileFormat", () => {
  it("accepts 2 and 20 entries", () => {
    expect(() => validateCreatePromotion(variationsBody(2))).not.toThrow();
    expect(() => validateCreatePromotion(variationsBody(20))).not.toThrow();
  });
  it("refuses 1 and 21 entries at path variations, with the limit", () => {
    for (const [n, constraint, limit] of [
      [1, "min_items", 2],
      [21, "max_items", 20],
    ] as const) {
      try {
        validateCreatePromotion(variationsBody(n));
        expect.unreachable();
      } catch (error) {
        const e = error as ValidationError;
        expect(e.fieldErrors.map((f) => f.field)).toEqual(["variations"]);
        expect(e.constraintViolations).toEqual([
          { type: "constraint_violation", constraint, limit, actual: n },
        ]);
      }
    }
  });
  it("refuses each excluded top-level field at its own path", () => {
    const body = variationsBody(2, { fileFormat: "pdf", uploadIds: [IDS.upload], content: "x" });
    expect(fields(() => validateCreatePromotion(body)).sort()).toEqual([
      "content",
      "fileFormat",
      "uploadIds",
    ]);
  });
  it("checks fields inside a variation with an indexed path", () => {
    const body = variationsBody(3);
    body.variations![1] = { uploadId: "not-a-uuid", channelIds: [IDS.channel, "x"] };
    expect(fields(() => validateCreatePromotion(body))).toEqual([
      "variations.1.channelIds.1",
      "variations.1.uploadId",
    ]);
  });
  it("refuses a variation that is not an object", () => {
    const body = variationsBody(2, { variations: [{ content: "a" }, "b"] });
    expect(fields(() => validateCreatePromotion(body))).toEqual(["variations.1"]);
  });
});

describe("productIds and channelIds: at least one item; promotionName at least one character", () => {
  it("refuses empty and missing lists", () => {
    expect(
      fields(() => validateCreatePromotion(textBody({ productIds: [], channelIds: undefined }))),
    ).toEqual(["productIds", "channelIds"]);
  });
  it("refuses an empty or missing promotionName", () => {
    expect(fields(() => validateCreatePromotion(textBody({ promotionName: "" })))).toEqual(["promotionName"]);
    expect(fields(() => validateCreatePromotion(textBody({ promotionName: undefined })))).toEqual([
      "promotionName",
    ]);
  });
  it("refuses a body that is not an object", () => {
    expect(fields(() => validateCreatePromotion(null as never))).toEqual(["(body)"]);
    expect(fields(() => validateNewVersion([] as never))).toEqual(["(body)"]);
  });
});

describe("uuids: every id field is a UUID", () => {
  it("reports each bad id at its path", () => {
    const body = textBody({
      productIds: ["nope"],
      jurisdictionId: "123",
      linkedClaimIds: [IDS.upload, 7],
      targetMarketIds: "x",
    });
    expect(fields(() => validateCreatePromotion(body))).toEqual([
      "productIds.0",
      "jurisdictionId",
      "linkedClaimIds.1",
      "targetMarketIds",
    ]);
  });
  it("accepts upper-case UUIDs", () => {
    expect(() =>
      validateCreatePromotion(textBody({ jurisdictionId: IDS.jurisdiction.toUpperCase() })),
    ).not.toThrow();
  });
});

describe("booleans, caption and promotion type", () => {
  it("refuses non-boolean flags and an unknown promotion type", () => {
    const body = textBody({ paidPromotion: "yes", evergreen: 1, caption: 5, promotionType: "bundle" });
    expect(fields(() => validateCreatePromotion(body))).toEqual([
      "paidPromotion",
      "evergreen",
      "caption",
      "promotionType",
    ]);
  });
  it("accepts every documented promotion type", () => {
    for (const promotionType of ["single", "carousel", "variations"]) {
      expect(() => validateCreatePromotion(textBody({ promotionType }))).not.toThrow();
    }
  });
});

describe("unknown extra fields pass through untouched", () => {
  it("sends the caller's object, unknown fields and all", () => {
    const extra = { futureField: { nested: [1, 2] }, constructor: "kept" };
    const body = textBody(extra);
    const sent = validateCreatePromotion(body);
    expect(sent).toBe(body);
    expect(sent["futureField"]).toBe(extra.futureField);
    const version = { fileFormat: "text" as const, content: "v2", whatever: true };
    expect(validateNewVersion(version)).toBe(version);
  });
  it("keeps unknown fields of a variation", () => {
    const body = variationsBody(2);
    body.variations![0]!["futureField"] = 1;
    expect(validateCreatePromotion(body).variations![0]!["futureField"]).toBe(1);
  });
});
