import { type ErrorDetail, parseDetail } from "./details.js";

/** The service's error body, with `details` typed. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetail[] };
  correlationId: string | undefined;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null;

/**
 * Reads a parsed JSON body as the error envelope; `undefined` when it is not one. Never throws. An
 * envelope is an object whose `error` has a string `code`; `message` and `correlationId`, when
 * present, are strings and `details` an array. Other fields are allowed.
 */
export function parseEnvelope(body: unknown): ErrorEnvelope | undefined {
  if (!isObject(body) || !isObject(body["error"])) return undefined;
  const { code, message, details } = body["error"];
  const correlationId = body["correlationId"];
  if (typeof code !== "string") return undefined;
  if (message !== undefined && typeof message !== "string") return undefined;
  if (details !== undefined && !Array.isArray(details)) return undefined;
  if (correlationId !== undefined && typeof correlationId !== "string") return undefined;
  return {
    error: { code, message: message ?? "", details: (details ?? []).map(parseDetail) },
    correlationId,
  };
}
