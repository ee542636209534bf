/**
 * The one error envelope both services answer with (the spec's Errors section), as a valibot schema
 * like every other answer: `error` with `code`, `message` and optional `details` (each entry
 * discriminated by `type`), and `correlationId`.
 */
import { KNOWN_CODES } from "@promo-review/errors";
import * as v from "valibot";

/** One entry of `error.details`: the four shapes the spec lists, discriminated by `type`. */
export const errorDetailSchema = v.variant("type", [
  v.looseObject({ type: v.literal("field_error"), field: v.string(), message: v.string() }),
  v.looseObject({
    type: v.literal("constraint_violation"),
    constraint: v.string(),
    limit: v.number(),
    actual: v.number(),
  }),
  v.looseObject({ type: v.literal("retry_info"), retryAfterSeconds: v.number() }),
  v.looseObject({ type: v.literal("upload_not_ready"), uploadId: v.pipe(v.string(), v.uuid()) }),
]);

/** The error envelope of both services. */
export const errorEnvelopeSchema = v.looseObject({
  error: v.looseObject({
    code: v.pipe(
      v.string(),
      v.description(`One of ${KNOWN_CODES.join(", ")} (an unknown code is kept as sent).`),
    ),
    message: v.string(),
    details: v.optional(v.array(errorDetailSchema)),
  }),
  correlationId: v.string(),
});
