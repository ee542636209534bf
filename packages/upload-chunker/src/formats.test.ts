import { ValidationError } from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkUpload, FORMAT_LIMITS, formatOf, limitOf } from "./index.js";

describe("the content type -> format table", () => {
  it.each([
    ["application/pdf", "pdf", 31_457_280],
    ["Application/PDF; charset=binary", "pdf", 31_457_280],
    ["image/png", "image", 31_457_280],
    ["image/svg+xml", "image", 31_457_280],
    ["video/mp4", "video", 2_147_483_648],
    ["audio/mpeg", "audio", 2_147_483_648],
    ["application/msword", "document", 10_485_760],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "document", 10_485_760],
    ["application/vnd.oasis.opendocument.text", "document", 10_485_760],
    ["application/vnd.ms-excel", "document", 10_485_760],
    ["text/plain", "document", 10_485_760],
    ["text/csv", "document", 10_485_760],
  ])("%s is %s, limit %d", (type, format, limit) => {
    expect(formatOf(type)).toBe(format);
    expect(limitOf(type)).toBe(limit);
  });

  it.each(["application/zip", "text/javascript", "image", "", "video/"])(
    "%j is unknown and not refused locally",
    (type) => {
      expect(formatOf(type)).toBeUndefined();
      expect(limitOf(type)).toBeUndefined();
    },
  );

  it("the limits are the spec's", () => {
    expect(FORMAT_LIMITS).toEqual({
      pdf: 31_457_280,
      image: 31_457_280,
      video: 2_147_483_648,
      audio: 2_147_483_648,
      document: 10_485_760,
    });
  });
});

describe("local checks before any request", () => {
  const types = ["application/pdf", "image/jpeg", "video/webm", "audio/wav", "application/rtf"];

  it("a size is accepted exactly up to its format's limit (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.integer({ min: -2, max: 2 }), (type, delta) => {
        const limit = limitOf(type)!;
        const size = limit + delta;
        const check = () => checkUpload({ fileName: "f", contentType: type, size });
        if (delta <= 0) expect(check).not.toThrow();
        else {
          const error = (() => {
            try {
              check();
            } catch (e) {
              return e as ValidationError;
            }
          })();
          expect(error).toBeInstanceOf(ValidationError);
          expect(error!.constraintViolations).toEqual([
            { type: "constraint_violation", constraint: "max_file_size", limit, actual: size },
          ]);
        }
      }),
    );
  });

  it("names every problem at once", () => {
    expect(() => checkUpload({ fileName: "", contentType: 3, size: 0 })).toThrow(
      expect.objectContaining({
        local: true,
        fieldErrors: [
          expect.objectContaining({ field: "fileName" }),
          expect.objectContaining({ field: "contentType" }),
          expect.objectContaining({ field: "fileSize" }),
        ],
      }),
    );
  });
});
