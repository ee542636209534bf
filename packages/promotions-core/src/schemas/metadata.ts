/**
 * Metadata rules: at most 20 keys; a key of letters, digits, underscore and hyphen, at most 128
 * characters; a string value of at most 1024 characters. Written as a raw check over
 * `Object.entries` rather than `v.record`, because `v.record` skips the keys `constructor` and
 * `prototype`, which are valid metadata keys and must be checked like any other.
 */

import { addIssueAt } from "@promo-review/http";
import * as v from "valibot";
import {
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  METADATA_KEY_PATTERN,
} from "../limits.js";
import { plainObjectSchema } from "./primitives.js";

/** `metadata`: an object of string values. */
export const metadataSchema = v.pipe(
  plainObjectSchema("must be an object of string values"),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const entries = Object.entries(dataset.value as Record<string, unknown>);
    if (entries.length > MAX_METADATA_KEYS) {
      addIssueAt(addIssue, dataset.value, [], `must have at most ${MAX_METADATA_KEYS} keys`, {
        name: "max_keys",
        limit: MAX_METADATA_KEYS,
        actual: entries.length,
        side: "max",
      });
    }
    for (const [key, value] of entries) {
      if (key.length > MAX_METADATA_KEY_LENGTH) {
        addIssueAt(
          addIssue,
          dataset.value,
          [key],
          `key must be at most ${MAX_METADATA_KEY_LENGTH} characters`,
          { name: "max_key_length", limit: MAX_METADATA_KEY_LENGTH, actual: key.length, side: "max" },
        );
      } else if (!METADATA_KEY_PATTERN.test(key)) {
        addIssueAt(
          addIssue,
          dataset.value,
          [key],
          "key may contain only letters, digits, underscore and hyphen",
        );
      }
      if (typeof value !== "string") {
        addIssueAt(addIssue, dataset.value, [key], "value must be a string");
      } else if (value.length > MAX_METADATA_VALUE_LENGTH) {
        addIssueAt(
          addIssue,
          dataset.value,
          [key],
          `value must be at most ${MAX_METADATA_VALUE_LENGTH} characters`,
          { name: "max_length", limit: MAX_METADATA_VALUE_LENGTH, actual: value.length, side: "max" },
        );
      }
    }
  }),
);
