/**
 * The checks the operation runner makes with a declaration's schemas: a request body before it is sent (a local `ValidationError` in the server's shape), and an
 * answer against what the spec states for it (an `UNEXPECTED_RESPONSE` naming the field).
 * @packageDocumentation
 */
import {
  describeValue,
  expectObject,
  localValidationError,
  type ResponseContext,
  unexpectedResponse,
} from "@promo-review/errors/internal";
import * as v from "valibot";
import { isMissingKey, issueField, toLocalIssues } from "./schema-issues.js";

/** A schema of a declaration, as the runner reads it (valibot's). */
export type Schema = v.GenericSchema<unknown, unknown>;

/**
 * Checks `body` against `schema` and returns the schema's output, or throws a local
 * `ValidationError` listing every problem under `summary`.
 */
export function checkBody<T>(schema: v.GenericSchema<unknown, T>, body: unknown, summary: string): T {
  const result = v.safeParse(schema, body);
  if (!result.success) throw localValidationError(toLocalIssues(result.issues), summary);
  return result.output;
}

/**
 * Returns `data` when it keeps `schema`, else throws `UnexpectedResponseError` for the first field
 * that breaks it (or for the body, when it is not a JSON object). The schema's output is not used:
 * the caller gets the body exactly as sent.
 */
export function checkAnswer<T>(schema: Schema, data: unknown, context: ResponseContext): T {
  expectObject(data, context);
  const result = v.safeParse(schema, data);
  if (!result.success) {
    const issue = result.issues[0];
    throw unexpectedResponse({
      ...context,
      field: issueField(issue),
      problem: isMissingKey(issue)
        ? "is required"
        : issue.input === undefined
          ? `is required (${issue.message})`
          : `${issue.message} (got ${describeValue(issue.input)})`,
    });
  }
  return data as T;
}
