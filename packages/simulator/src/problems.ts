/**
 * Collects every validation problem of a request before answering, so one 400 names all bad fields
 * (clients show them together) instead of making the caller fix them one round-trip at a time.
 */
import { ApiError, type ErrorDetail } from "./envelope.js";

/** A collector of `field_error` and `constraint_violation` details. */
export class Problems {
  /** The details gathered so far. */
  readonly details: ErrorDetail[] = [];

  /** Records a bad field. */
  field(field: string, message: string): void {
    this.details.push({ type: "field_error", field, message });
  }

  /**
   * Records a limit exceeded on a field: a field_error naming the field and a constraint_violation
   * carrying the numbers, because the spec wants both the field path and the permitted length.
   */
  limit(field: string, constraint: string, limit: number, actual: number, message: string): void {
    this.field(field, message);
    this.details.push({ type: "constraint_violation", constraint, limit, actual });
  }

  /** Throws a VALIDATION_ERROR carrying every detail, when there is any. */
  throwIfAny(): void {
    if (this.details.length === 0) return;
    const first = this.details[0];
    const summary = first?.type === "field_error" ? `${first.field}: ${first.message}` : "invalid request";
    const more = this.details.filter((d) => d.type === "field_error").length - 1;
    throw new ApiError(
      "VALIDATION_ERROR",
      more > 0 ? `${summary} (and ${more} more problem${more > 1 ? "s" : ""})` : summary,
      this.details,
    );
  }
}

/** True for a non-empty string. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
