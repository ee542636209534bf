import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { toLocalIssues } from "./local-issues.js";

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
