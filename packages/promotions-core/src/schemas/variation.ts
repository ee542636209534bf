/**
 * A variation entry and the `variations` list (2 to 20 entries). Entries are loose objects: fields
 * the spec does not list pass through to the service untouched.
 */
import * as v from "valibot";
import { MAX_VARIATIONS, MIN_VARIATIONS } from "../limits.js";
import {
  booleanSchema,
  detailsSchema,
  nonEmptyStringSchema,
  stringSchema,
  uuidListSchema,
  uuidSchema,
} from "./primitives.js";

/** One element of `variations`. */
export const variationSchema = v.looseObject(
  {
    channelIds: v.optional(uuidListSchema),
    jurisdictionId: v.optional(uuidSchema),
    uploadId: v.optional(uuidSchema),
    content: v.optional(nonEmptyStringSchema),
    caption: v.optional(stringSchema),
    details: v.optional(detailsSchema),
    linkedClaimIds: v.optional(uuidListSchema),
    targetMarketIds: v.optional(uuidListSchema),
    applyToAllTargetMarkets: v.optional(booleanSchema),
  },
  "must be an object",
);

/** `variations`: 2 to 20 entries. */
export const variationsSchema = v.pipe(
  v.array(variationSchema, "must be an array of variation entries"),
  v.minLength(MIN_VARIATIONS, `must have at least ${MIN_VARIATIONS} entries`),
  v.maxLength(MAX_VARIATIONS, `must have at most ${MAX_VARIATIONS} entries`),
);
