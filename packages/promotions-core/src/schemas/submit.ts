/**
 * The submit request: an object, possibly empty, that may name a reviewer by email and override the
 * deadline. The spec does not show those fields' names; the SDK sends `reviewerEmail` and `deadline`
 * (docs/gaps.md) and checks only what the spec states: a deadline is a date or an ISO 8601 date-time.
 */
import * as v from "valibot";
import { deadlineSchema, plainObjectSchema, stringSchema } from "./primitives.js";

/** The submit request's schema. */
export const submitSchema = v.pipe(
  plainObjectSchema("the submit request must be a JSON object"),
  v.looseObject(
    {
      reviewerEmail: v.optional(stringSchema),
      deadline: v.optional(deadlineSchema),
    },
    "the submit request must be a JSON object",
  ),
);
