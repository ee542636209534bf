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
export const CLIENT_CODES = ["NETWORK_ERROR", "TIMEOUT", "ABORTED", "UNEXPECTED_RESPONSE"] as const;

/** A code the SDK itself gives. */
export type ClientCode = (typeof CLIENT_CODES)[number];

/**
 * The `code` of any error: a documented code, a client code, or an unknown server code kept as sent
 * (`string & {}` keeps autocompletion for the known ones).
 */
export type ErrorCode = KnownCode | ClientCode | (string & {});

/** Whether `code` is one the service documents. */
export function isKnownCode(code: string): code is KnownCode {
  return (KNOWN_CODES as readonly string[]).includes(code);
}

/** Whether `code` is one the service documents or one the SDK gives: words of the SDK, never a secret. */
export function isVocabularyCode(code: string): boolean {
  return isKnownCode(code) || (CLIENT_CODES as readonly string[]).includes(code);
}
