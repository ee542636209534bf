/**
 * Tag rules: at most 20 tags, each at most 255 characters, names trimmed and duplicates within one
 * request ignored, and the names beginning with `Var-` and `TESTING` reserved. Trimming and removing
 * duplicates happen before the count and the length are checked, because the service applies its
 * limits to the names it would attach, and the client sends exactly those names.
 */
import * as v from "valibot";
import { MAX_TAG_LENGTH, MAX_TAGS, RESERVED_TAG_NAME, RESERVED_TAG_PREFIX } from "../limits.js";
import { stringSchema } from "./primitives.js";

/** Whether a trimmed tag name is reserved by the service (case as written in the spec). */
export function isReservedTag(name: string): boolean {
  return name.startsWith(RESERVED_TAG_PREFIX) || name === RESERVED_TAG_NAME;
}

/** One tag name, trimmed. */
export const tagSchema = v.pipe(
  stringSchema,
  // The same trimming as `v.trim()`, through the transform the list's de-duplication needs anyway:
  // one valibot action fewer in a bundle.
  v.transform((name: string) => name.trim()),
  v.minLength(1, "must not be empty (after trimming)"),
  v.maxLength(MAX_TAG_LENGTH, `must be at most ${MAX_TAG_LENGTH} characters (after trimming)`),
  v.check(
    (name) => !isReservedTag(name),
    `is reserved (names beginning with ${RESERVED_TAG_PREFIX} and the name ${RESERVED_TAG_NAME})`,
  ),
);

/** `tags`: trimmed, duplicates dropped (first occurrence kept), then at most 20. */
export const tagsSchema = v.pipe(
  v.array(tagSchema, "must be an array of strings"),
  v.transform((names: string[]) => [...new Set(names)]),
  v.maxLength(MAX_TAGS, `must have at most ${MAX_TAGS} tags (after trimming and removing duplicates)`),
);
