/**
 * The fields the main API's answers share, as valibot schemas: a uuid, a positive integer, a JSON
 * object. Each answer's schema builds on them (schemas/responses.ts, and the creation answer in its
 * own module so that one operation's bundle holds only its own answer).
 */
import * as v from "valibot";
import { plainObjectSchema } from "./primitives.js";

/** A uuid string. */
export const uuidAnswer = v.pipe(v.string("must be a UUID string"), v.uuid("must be a UUID string"));

/** An integer above 0 (a version number, a count). */
export const positiveIntegerAnswer = v.pipe(
  v.number("must be an integer"),
  v.safeInteger("must be an integer"),
  v.minValue(1, "must be an integer > 0"),
);

/** Any JSON object (not an array, not null). */
export const plainObjectAnswer = plainObjectSchema("must be a JSON object");
