/**
 * Checking a success answer against what the spec states for it (schemas/responses.ts). A breach is
 * an `UNEXPECTED_RESPONSE` naming the field, the operation and the correlation id; the answer is
 * otherwise returned as sent, unknown fields included.
 */
import {
  describeValue,
  expectObject,
  type ResponseContext,
  unexpectedResponse,
} from "@promo-review/errors/internal";
import * as v from "valibot";
import { isMissingKey, issueField } from "./local-issues.js";

/**
 * Returns `data` when it keeps `schema`, else throws `UnexpectedResponseError` for the first field
 * that breaks it (or for the body, when it is not a JSON object). The schema's output is not used:
 * the caller gets the body exactly as sent.
 */
export function checkAnswer<T>(
  schema: v.GenericSchema<unknown, unknown>,
  data: unknown,
  context: ResponseContext,
): T {
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
