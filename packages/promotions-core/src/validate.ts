/**
 * Client-side validation of every rule the spec states, before any request. A refusal is a local
 * `ValidationError` (`local: true`) in the server's shape: `field_error` details with dotted paths
 * (`variations.2.details`, `tags.3`, `metadata.<key>`) and a `constraint_violation` for each limit.
 */
import { checkBody, checkId } from "@promo-review/http";
import { createPromotion, createVersion, submitVersion } from "./operations/promotions.js";
import type { CreatePromotionRequest, NewVersionRequest, SubmitRequest } from "./types.js";

/**
 * Checks a creation request against every stated rule and returns the body to send: the caller's own
 * object with only `tags` normalised (trimmed, duplicates dropped). Every other field, unknown ones
 * included, is sent exactly as given. Throws a local `ValidationError` listing every problem.
 */
export function validateCreatePromotion<T extends CreatePromotionRequest>(body: T): T {
  const output = checkBody(createPromotion.request, body, createPromotion.refusal);
  return output.tags === undefined ? body : { ...body, tags: output.tags };
}

/** Checks a new-version request (text-vs-file rule, `details` length) and returns it unchanged. */
export function validateNewVersion<T extends NewVersionRequest>(body: T): T {
  checkBody(createVersion.request, body, createVersion.refusal);
  return body;
}

/** Checks a submit request (a deadline is a date or an ISO 8601 date-time) and returns it unchanged. */
export function validateSubmit<T extends SubmitRequest>(body: T): T {
  checkBody(submitVersion.request, body, submitVersion.refusal);
  return body;
}

/** Checks that a path parameter (`promotionId`, `versionId`) is a UUID, so a typo costs no request. */
export function validateId(value: unknown, field: string): string {
  return checkId(value, field);
}
