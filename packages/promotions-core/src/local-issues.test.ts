import { toLocalIssues } from "@promo-review/http";
import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { caught, refusal, textBody } from "../test/support/fixtures.js";
import type { CreatePromotionRequest } from "./types.js";
import { validateCreatePromotion } from "./validate.js";

describe("valibot issues become dotted field paths and the limits broken", () => {
  it("turns valibot issues into dotted paths, with the limit broken", () => {
    const Schema = v.object({
      variations: v.array(v.object({ details: v.pipe(v.string(), v.maxLength(3, "too long")) })),
    });
    const result = v.safeParse(Schema, {
      variations: [{ details: "ok" }, { details: "ok" }, { details: "long" }],
    });
    expect(result.success).toBe(false);
    expect(toLocalIssues(result.issues ?? [])).toEqual([
      {
        field: "variations.2.details",
        message: "too long",
        constraint: { name: "max_length", limit: 3, actual: 4 },
      },
    ]);
    const root = v.safeParse(v.string(), 5);
    expect(toLocalIssues(root.issues ?? [])[0]?.field).toBe("(body)");
  });

  it("any index lands in the path (property)", () => {
    const Schema = v.array(v.pipe(v.string(), v.maxLength(2)));
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 2 }), { maxLength: 10 }),
        fc.nat({ max: 10 }),
        (list, at) => {
          const input = [...list];
          const index = Math.min(at, input.length);
          input.splice(index, 0, "long");
          const result = v.safeParse(Schema, input);
          return toLocalIssues(result.issues ?? [])[0]?.field === String(index);
        },
      ),
    );
  });
});

describe("a required key that is absent is reported as required, not with its object's message", () => {
  it("names each missing key of a creation request with 'is required'", () => {
    const body = textBody();
    for (const key of ["promotionName", "productIds", "channelIds"] as const) {
      const { [key]: _dropped, ...rest } = body;
      const error = caught(() => validateCreatePromotion(rest as CreatePromotionRequest));
      expect(error.fieldErrors).toEqual([{ type: "field_error", field: key, message: "is required" }]);
      expect(error.message).toContain(`${key}: is required`);
      expect(error.message).not.toContain("must be a JSON object");
    }
  });

  it("keeps the object's own message for a value that is not an object, and a key's for a wrong value", () => {
    expect(refusal(() => validateCreatePromotion(null as never))).toEqual([
      { field: "(body)", message: "the creation request must be a JSON object" },
    ]);
    const wrong = refusal(() => validateCreatePromotion(textBody({ promotionName: 5 })));
    expect(wrong.map((f) => f.field)).toEqual(["promotionName"]);
    expect(wrong[0]?.message).not.toBe("is required");
  });

  it("a missing key at any depth, whatever its name (property)", () => {
    fc.assert(
      fc.property(
        // An inherited name (`constructor`) is not absent from `{}`: it is a wrong value there.
        fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,11}$/).filter((key) => !(key in Object.prototype)),
        (key) => {
          const Schema = v.object({
            outer: v.looseObject({ [key]: v.string("must be text") }, "not an object"),
          });
          const issues = toLocalIssues(v.safeParse(Schema, { outer: {} }).issues ?? []);
          return (
            issues.length === 1 && issues[0]?.field === `outer.${key}` && issues[0]?.message === "is required"
          );
        },
      ),
    );
  });
});
