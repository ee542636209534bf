/**
 * The new-version request (POST /v1/promotions/{id}/versions): `fileFormat` with the same text-vs-file
 * rule as creation, `details` of at most 1500 characters, and further fields passed through (the spec
 * names only uploadIds, fileFormat and details and says "and further fields").
 */
import * as v from "valibot";
import { checkFormatAndContent } from "./content-rule.js";
import {
  booleanSchema,
  detailsSchema,
  fileFormatSchema,
  isPlainObject,
  nonEmptyStringSchema,
  plainObjectSchema,
  stringSchema,
  uuidListSchema,
} from "./primitives.js";

/** The new-version request's schema. */
export const newVersionSchema = v.pipe(
  plainObjectSchema("the new-version request must be a JSON object"),
  v.looseObject(
    {
      uploadIds: v.optional(uuidListSchema),
      content: v.optional(nonEmptyStringSchema),
      fileFormat: v.optional(fileFormatSchema),
      details: v.optional(detailsSchema),
      caption: v.optional(stringSchema),
      isFinancialPromotion: v.optional(booleanSchema),
    },
    "the new-version request must be a JSON object",
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    const body = dataset.value;
    if (isPlainObject(body)) checkFormatAndContent(body, addIssue);
  }),
);
