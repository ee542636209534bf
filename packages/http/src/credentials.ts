import { localValidationError } from "@promo-review/errors/internal";

/** An API key acting for a user of the calling system (main API and file service). */
export interface ApiKeyCredentials {
  apiKey: string;
  /** Sent as `X-External-User-ID`; required by the main API and by the file service with an API key. */
  externalUserId: string;
  /** Sent as `X-External-User-Email`; used only on act-on-behalf keys (mandatory there on writes). */
  externalUserEmail?: string;
}

/** A user session token (file service only); the user comes from the token. */
export interface SessionCredentials {
  sessionToken: string;
  /** Sent as `x-service-workspace-id`, the workspace fallback when the workspace cookie cannot be shared. */
  workspaceId?: string;
}

/** How a client authenticates. */
export type Credentials = ApiKeyCredentials | SessionCredentials;

/**
 * Checks credentials once, when a client is made, so that a key with a stray space or a missing user
 * id fails here with a clear message instead of as a 401 or 400 on the first call.
 */
export function checkCredentials(credentials: Credentials): void {
  const token = "apiKey" in credentials ? credentials.apiKey : credentials.sessionToken;
  const field = "apiKey" in credentials ? "apiKey" : "sessionToken";
  const issues = [];
  if (typeof token !== "string" || token.length === 0) {
    issues.push({ field, message: "is required" });
  } else if (/\s/.test(token)) {
    issues.push({ field, message: "contains white space; copy the key without spaces or line breaks" });
  }
  if ("apiKey" in credentials && !credentials.externalUserId) {
    issues.push({
      field: "externalUserId",
      message: "is required with an API key (it identifies the acting user in your system)",
    });
  }
  if (issues.length > 0) throw localValidationError(issues, "The client configuration is invalid");
}

/** The authentication headers for every request: `Authorization: Bearer <token>` and the user headers. */
export function authHeaders(credentials: Credentials): Record<string, string> {
  if ("apiKey" in credentials) {
    return {
      Authorization: `Bearer ${credentials.apiKey}`,
      "X-External-User-ID": credentials.externalUserId,
      ...(credentials.externalUserEmail ? { "X-External-User-Email": credentials.externalUserEmail } : {}),
    };
  }
  return {
    Authorization: `Bearer ${credentials.sessionToken}`,
    ...(credentials.workspaceId ? { "x-service-workspace-id": credentials.workspaceId } : {}),
  };
}

/** The values to redact from every error of a client using these credentials. */
export function secretsOf(credentials: Credentials): string[] {
  return ["apiKey" in credentials ? credentials.apiKey : credentials.sessionToken];
}
