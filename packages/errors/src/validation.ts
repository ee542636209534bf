import { ValidationError } from "./classes.js";
import type { ConstraintViolationDetail, ErrorDetail, FieldErrorDetail } from "./details.js";

/** One problem found before sending: a dotted field path, a message, and optionally the limit broken. */
export interface LocalIssue {
  field: string;
  message: string;
  /** The limit broken, reported as a `constraint_violation` beside the field error. */
  constraint?: { name: string; limit: number; actual: number };
}

/**
 * A `ValidationError` for input refused before any request, shaped as the server's: `field_error`
 * details with dotted paths (`variations.2.details`) and `constraint_violation` entries for limits.
 */
export function localValidationError(
  issues: readonly LocalIssue[],
  summary = "The request is invalid",
): ValidationError {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    details.push({
      type: "field_error",
      field: issue.field,
      message: issue.message,
    } satisfies FieldErrorDetail);
    if (issue.constraint) {
      details.push({
        type: "constraint_violation",
        constraint: issue.constraint.name,
        limit: issue.constraint.limit,
        actual: issue.constraint.actual,
      } satisfies ConstraintViolationDetail);
    }
  }
  return new ValidationError({
    code: "VALIDATION_ERROR",
    message: `${summary} (checked before sending; nothing reached the service)`,
    details,
    local: true,
  });
}
