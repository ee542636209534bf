/**
 * The creation answer (201), in its own module: a bundle that creates promotions holds no other
 * answer's schema (a module's top-level schemas stay in a bundle once it is imported).
 */
import * as v from "valibot";
import { plainObjectAnswer, positiveIntegerAnswer, uuidAnswer } from "./answer-fields.js";
import { stringSchema } from "./primitives.js";

/** The creation response (201): `publicId`, `metadata` and `tags` are optional (checked when present). */
export const createPromotionResponseSchema = v.looseObject({
  promotionId: uuidAnswer,
  versionId: uuidAnswer,
  version: positiveIntegerAnswer,
  publicId: v.optional(stringSchema),
  metadata: v.optional(plainObjectAnswer),
  tags: v.optional(v.array(stringSchema, "must be an array of strings")),
});
