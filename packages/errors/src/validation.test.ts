import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { issuesFromValibot, localValidationError, ValidationError } from "./index.js";

describe("local validation errors have the server's field_error shape and dotted paths", () => {
  it("carries field errors and constraint violations, marked local", () => {
    const error = localValidationError([
      {
        field: "variations.2.details",
        message: "must be at most 1500 characters",
        constraint: { name: "max_length", limit: 1500, actual: 1600 },
      },
      { field: "tags.0", message: "TESTING is reserved" },
    ]);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.local).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.fieldErrors.map((f) => f.field)).toEqual(["variations.2.details", "tags.0"]);
    expect(error.constraintViolations).toEqual([
      { type: "constraint_violation", constraint: "max_length", limit: 1500, actual: 1600 },
    ]);
    expect(error.message).toContain("nothing reached the service");
  });

  it("turns valibot issues into dotted paths", () => {
    const Schema = v.object({
      variations: v.array(v.object({ details: v.pipe(v.string(), v.maxLength(3, "too long")) })),
    });
    const result = v.safeParse(Schema, {
      variations: [{ details: "ok" }, { details: "ok" }, { details: "long" }],
    });
    expect(result.success).toBe(false);
    const issues = issuesFromValibot(result.issues ?? []);
    expect(issues).toEqual([{ field: "variations.2.details", message: "too long" }]);
    const root = v.safeParse(v.string(), 5);
    expect(issuesFromValibot(root.issues ?? [])[0]?.field).toBe("(body)");
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
          return issuesFromValibot(result.issues ?? [])[0]?.field === String(index);
        },
      ),
    );
  });
});
