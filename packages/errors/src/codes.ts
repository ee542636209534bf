/** Every error code the service documents, on either service. */
export const KNOWN_CODES = [
  "VALIDATION_ERROR",
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "UPSTREAM_ERROR",
  "SERVICE_ERROR",
  "PARENT_NOT_FOUND",
] as const;

/** A code documented by the service. */
export type KnownCode = (typeof KNOWN_CODES)[number];

/** Codes the SDK gives failures that never reached a server answer, or whose answer was not the envelope. */
export type ClientCode = "NETWORK_ERROR" | "TIMEOUT" | "ABORTED" | "UNEXPECTED_RESPONSE";

/**
 * The `code` of any error: a documented code, a client code, or an unknown server code kept as sent
 * (`string & {}` keeps autocompletion for the known ones).
 */
export type ErrorCode = KnownCode | ClientCode | (string & {});

/** Whether `code` is one the service documents. */
export function isKnownCode(code: string): code is KnownCode {
  return (KNOWN_CODES as readonly string[]).includes(code);
}
