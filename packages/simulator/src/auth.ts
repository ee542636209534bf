/**
 * Authentication of both services. The simulator issues one key of each kind the spec mentions
 * (production, staging, revoked, act-on-behalf, not fully configured) plus a file-service session
 * token, so every failure condition of the Authentication section can be reached.
 */
import type { IncomingMessage } from "node:http";
import { ApiError } from "./envelope.js";
import type { Random } from "./random.js";

/** The credentials a simulator instance accepts or rejects. */
export interface Keys {
  /** A valid production key. */
  apiKey: string;
  /** A staging key: well-formed, but rejected because staging and production keys are not interchangeable. */
  stagingKey: string;
  /** A revoked production key. */
  revokedKey: string;
  /** A production key with act-on-behalf enabled (X-External-User-Email mandatory on writes). */
  actOnBehalfKey: string;
  /** A key that authenticates but is not fully configured for the organisation (403). */
  unconfiguredKey: string;
}

/** Everything auth needs to know about the issued credentials. */
export interface Credentials {
  keys: Keys;
  /** File-service user session token. */
  sessionToken: string;
  /** Workspace of the session token (expected in `x-service-workspace-id`). */
  workspaceId: string;
}

/** Who a request acts as, once authenticated. */
export interface Principal {
  /** The API key (or session token) presented; the rate limiter keys on it. */
  credential: string;
  kind: "api-key" | "act-on-behalf" | "session";
  /** X-External-User-ID (absent for session tokens). */
  externalUserId?: string;
  /** X-External-User-Email when given and used. */
  externalUserEmail?: string;
}

/** Issues a fresh set of credentials from the seeded generator. */
export function issueCredentials(random: Random, keyStyle: "pr" | "sk" | "opaque" = "pr"): Credentials {
  // The key's form is the issuer's business ("not shown"); a profile may choose another one.
  const token = (prefix: string) => {
    if (keyStyle === "sk") return `${prefix.replace("pr_", "sk_")}${random.bytes(16).toString("hex")}`;
    if (keyStyle === "opaque") return random.bytes(32).toString("base64url");
    return `${prefix}${random.bytes(18).toString("base64url")}`;
  };
  return {
    keys: {
      apiKey: token("pr_live_"),
      stagingKey: token("pr_test_"),
      revokedKey: token("pr_live_"),
      actOnBehalfKey: token("pr_live_"),
      unconfiguredKey: token("pr_live_"),
    },
    sessionToken: token("sess_"),
    workspaceId: random.uuid(),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True for a plausible email address (the spec says "email format"). */
export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL.test(value);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads `Authorization: Bearer <key>` with exactly one space. Anything else is UNAUTHORIZED: the spec
 * calls the single space out, and clients that send two spaces or a lowercase scheme must find out.
 */
function bearer(req: IncomingMessage): string {
  const value = header(req, "authorization");
  if (value === undefined) throw new ApiError("UNAUTHORIZED", "Missing Authorization header");
  const match = /^Bearer ([^\s]+)$/.exec(value);
  if (!match) throw new ApiError("UNAUTHORIZED", "Authorization must be 'Bearer <API_KEY>' with one space");
  return match[1]!;
}

/** Rejections shared by both services for the keys that do not work. */
function rejectUnusableKey(key: string, credentials: Credentials, correlationId: string): void {
  const { keys } = credentials;
  if (key === keys.stagingKey) {
    throw new ApiError(
      "UNAUTHORIZED",
      "This is a staging key; staging and production keys are not interchangeable",
    );
  }
  if (key === keys.revokedKey) throw new ApiError("UNAUTHORIZED", "This API key has been revoked");
  if (key === keys.unconfiguredKey) {
    throw new ApiError(
      "FORBIDDEN",
      `This API key is not fully configured for your organisation; contact support quoting correlation id ${correlationId}`,
    );
  }
}

/**
 * Authenticates a main-API request: the key, then X-External-User-ID (400 without), then, for
 * act-on-behalf keys on writes, X-External-User-Email. Ordinary keys ignore the email.
 */
export function authenticateMain(
  req: IncomingMessage,
  credentials: Credentials,
  correlationId: string,
): Principal {
  const key = bearer(req);
  rejectUnusableKey(key, credentials, correlationId);
  const { keys } = credentials;
  if (key !== keys.apiKey && key !== keys.actOnBehalfKey)
    throw new ApiError("UNAUTHORIZED", "Invalid API key");
  return { credential: key, kind: key === keys.actOnBehalfKey ? "act-on-behalf" : "api-key" };
}

/**
 * The header checks of the main API that come after rate limiting (a request rejected here was
 * admitted and so counts against the budget, like any other validation failure).
 */
export function checkMainUserHeaders(req: IncomingMessage, principal: Principal): Principal {
  const userId = header(req, "x-external-user-id");
  if (!userId) throw new ApiError("INVALID_REQUEST", "Missing X-External-User-ID header");
  const result: Principal = { ...principal, externalUserId: userId };
  if (principal.kind === "act-on-behalf" && req.method === "POST") {
    const email = header(req, "x-external-user-email");
    if (!isEmail(email)) {
      throw new ApiError(
        "INVALID_REQUEST",
        "X-External-User-Email (a valid email) is mandatory on writes with an act-on-behalf key",
      );
    }
    result.externalUserEmail = email;
  }
  return result;
}

/**
 * Authenticates a file-service request: an API key needs x-external-user-id; a session token ignores
 * the user headers but needs `x-service-workspace-id` naming its workspace (the simulator cannot share
 * a workspace cookie, so the fallback header is always the way in).
 */
export function authenticateFiles(
  req: IncomingMessage,
  credentials: Credentials,
  correlationId: string,
): Principal {
  const key = bearer(req);
  if (key === credentials.sessionToken) {
    const workspace = header(req, "x-service-workspace-id");
    if (workspace !== credentials.workspaceId) {
      throw new ApiError(
        "INVALID_REQUEST",
        "A session token needs x-service-workspace-id set to its workspace id",
      );
    }
    return { credential: key, kind: "session" };
  }
  rejectUnusableKey(key, credentials, correlationId);
  const { keys } = credentials;
  if (key !== keys.apiKey && key !== keys.actOnBehalfKey)
    throw new ApiError("UNAUTHORIZED", "Invalid API key");
  const userId = header(req, "x-external-user-id");
  if (!userId) throw new ApiError("INVALID_REQUEST", "Missing x-external-user-id header");
  return { credential: key, kind: "api-key", externalUserId: userId };
}
