import { localValidationError } from "@promo-review/errors/internal";

/** An API key acting for a user of the calling system (main API and file service). */
export interface ApiKeyCredentials {
  apiKey: string;
  /** Sent as `X-External-User-ID`; required by the main API and by the file service with an API key. */
  externalUserId: string;
  /** Sent as `X-External-User-Email`; used only on act-on-behalf keys (mandatory there on writes). */
  externalUserEmail?: string | undefined;
}

/** A user session token (file service only); the user comes from the token. */
export interface SessionCredentials {
  sessionToken: string;
  /** Sent as `x-service-workspace-id`, the workspace fallback when the workspace cookie cannot be shared. */
  workspaceId?: string | undefined;
}

/**
 * How a client authenticates: flat fields, named as on the facade's `createClient` (`apiKey`,
 * `externalUserId`, `externalUserEmail`), or a session (`sessionToken`, `workspaceId`).
 */
export type Credentials = ApiKeyCredentials | SessionCredentials;

/** The credential fields as options carry them: any of them may be absent until checked. */
export type CredentialFields = Partial<ApiKeyCredentials & SessionCredentials>;

/** One problem with the credentials: the option it is about, and what is wrong. */
export interface CredentialIssue {
  field: string;
  message: string;
}

/** A session when a session token is given and no API key. */
function isSession(credentials: CredentialFields): credentials is SessionCredentials {
  return credentials.sessionToken !== undefined && credentials.apiKey === undefined;
}

/** What is missing or malformed in `credentials`, one issue per field (empty when usable). */
export function credentialIssues(credentials: CredentialFields): CredentialIssue[] {
  const session = isSession(credentials);
  const token = session ? credentials.sessionToken : credentials.apiKey;
  const field = session ? "sessionToken" : "apiKey";
  const issues: CredentialIssue[] = [];
  if (typeof token !== "string" || token.length === 0) {
    issues.push({ field, message: "is required" });
  } else if (/\s/.test(token)) {
    issues.push({ field, message: "contains white space; copy the key without spaces or line breaks" });
  }
  if (!session && !credentials.externalUserId) {
    issues.push({
      field: "externalUserId",
      message: "is required with an API key (it identifies the acting user in your system)",
    });
  }
  return issues;
}

/**
 * Checks credentials once, when a client is made, so that a key with a stray space or a missing user
 * id fails here with a clear message instead of as a 401 or 400 on the first call.
 */
export function checkCredentials(credentials: CredentialFields): asserts credentials is Credentials {
  const issues = credentialIssues(credentials);
  if (issues.length > 0) throw localValidationError(issues, "The client configuration is invalid");
}

/**
 * The authentication headers for every request: `Authorization: Bearer <token>` and the user headers.
 * An optional header is left out rather than set to `undefined`: `Headers` would send the text
 * "undefined" (the spreads below change behaviour, so they stay).
 */
export function authHeaders(credentials: Credentials): Record<string, string> {
  if (isSession(credentials)) {
    return {
      Authorization: `Bearer ${credentials.sessionToken}`,
      ...(credentials.workspaceId ? { "x-service-workspace-id": credentials.workspaceId } : {}),
    };
  }
  return {
    Authorization: `Bearer ${credentials.apiKey}`,
    "X-External-User-ID": credentials.externalUserId,
    ...(credentials.externalUserEmail ? { "X-External-User-Email": credentials.externalUserEmail } : {}),
  };
}

/** The values to redact from every error of a client using these credentials. */
export function secretsOf(credentials: Credentials): string[] {
  return [isSession(credentials) ? credentials.sessionToken : credentials.apiKey];
}
