/**
 * The promotion creation request (POST /v1/promotions). Required: `promotionName` (min length 1),
 * `productIds` and `channelIds` (at least 1 item each), and either `variations` or `fileFormat` with
 * its `content` or `uploadIds`. Everything else is optional and checked when present; fields the spec
 * does not list pass through (a loose object), since the spec leaves further fields open.
 */
import * as v from "valibot";
import { PROMOTION_TYPES } from "../limits.js";
import { checkExclusiveWithVariations, checkFormatAndContent } from "./content-rule.js";
import { metadataSchema } from "./metadata.js";
import {
  booleanSchema,
  dateTimeSchema,
  deadlineSchema,
  detailsSchema,
  fileFormatSchema,
  isPlainObject,
  nonEmptyStringSchema,
  nonEmptyUuidListSchema,
  plainObjectSchema,
  stringSchema,
  uuidListSchema,
  uuidSchema,
} from "./primitives.js";
import { tagsSchema } from "./tags.js";
import { variationsSchema } from "./variation.js";

/** The creation request's schema. Its output has `tags` trimmed and deduplicated. */
export const createPromotionSchema = v.pipe(
  plainObjectSchema("the creation request must be a JSON object"),
  v.looseObject(
    {
      promotionName: nonEmptyStringSchema,
      productIds: nonEmptyUuidListSchema,
      channelIds: nonEmptyUuidListSchema,
      jurisdictionId: v.optional(uuidSchema),
      uploadIds: v.optional(uuidListSchema),
      content: v.optional(nonEmptyStringSchema),
      fileFormat: v.optional(fileFormatSchema),
      deadline: v.optional(deadlineSchema),
      paidPromotion: v.optional(booleanSchema),
      isFinancialPromotion: v.optional(booleanSchema),
      evergreen: v.optional(booleanSchema),
      nextReviewDate: v.optional(dateTimeSchema),
      caption: v.optional(stringSchema),
      details: v.optional(detailsSchema),
      promotionType: v.optional(v.picklist(PROMOTION_TYPES, `must be one of ${PROMOTION_TYPES.join(", ")}`)),
      linkedClaimIds: v.optional(uuidListSchema),
      targetMarketIds: v.optional(uuidListSchema),
      applyToAllTargetMarkets: v.optional(booleanSchema),
      metadata: v.optional(metadataSchema),
      variations: v.optional(variationsSchema),
      tags: v.optional(tagsSchema),
    },
    "the creation request must be a JSON object",
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    // A body of any other type was refused by the first step; the rule is about an object's fields.
    const record = dataset.value;
    if (!isPlainObject(record)) return;
    if (record["variations"] !== undefined) checkExclusiveWithVariations(record, addIssue);
    else checkFormatAndContent(record, addIssue);
  }),
);
