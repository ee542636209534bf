import * as v from "valibot";
import { type ErrorDetail, parseDetail } from "./details.js";

const EnvelopeSchema = v.looseObject({
  error: v.looseObject({
    code: v.string(),
    message: v.optional(v.string()),
    details: v.optional(v.array(v.unknown())),
  }),
  correlationId: v.optional(v.string()),
});

/** The service's error body, with `details` typed. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetail[] };
  correlationId: string | undefined;
}

/** Reads a parsed JSON body as the error envelope; `undefined` when it is not one. Never throws. */
export function parseEnvelope(body: unknown): ErrorEnvelope | undefined {
  const result = v.safeParse(EnvelopeSchema, body);
  if (!result.success) return undefined;
  const { error, correlationId } = result.output;
  return {
    error: {
      code: error.code,
      message: error.message ?? "",
      details: (error.details ?? []).map(parseDetail),
    },
    correlationId,
  };
}
