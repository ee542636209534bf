import { describe, expect, it } from "vitest";
import { ValidationError } from "./index.js";
import { localValidationError } from "./internal.js";

describe("local validation errors have the server's field_error shape", () => {
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
});
