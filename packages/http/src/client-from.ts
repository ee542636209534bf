/**
 * `httpClientFrom`: how every package client (`createLinkCapture`, `createPromotionsClient`,
 * `createUploader`) gets its HTTP client: the one it is handed, or one made from its options, with
 * one set of option names and one error for what is missing.
 * @packageDocumentation
 */
import { localValidationError } from "@promo-review/errors/internal";
import {
  type ConnectionOptions,
  createHttpClient,
  createHttpCore,
  type HttpClient,
  type HttpClientOptions,
} from "./client.js";
import { type CredentialFields, credentialIssues } from "./credentials.js";

/**
 * What a package client takes to reach its service: a ready `http` client, or the connection
 * options and the flat credentials (`apiKey`, `externalUserId`, `externalUserEmail`, or
 * `sessionToken`, `workspaceId`), named as on the facade's `createClient`.
 */
export interface HttpClientSource
  extends CredentialFields,
    Partial<Omit<ConnectionOptions, "baseUrl" | "redactAlso" | "sdkVersion">> {
  /** A ready client (the facade shares one); every other option here then goes unused. */
  http?: HttpClient | undefined;
}

/** What the calling package says about itself: its name for the error, and where its base URL is. */
export interface HttpClientDefaults {
  /** The package client being made, named in the error (`createUploader`). */
  client: string;
  /** The option holding the service's base URL, named in the error: `baseUrl` or `filesUrl`. */
  baseUrlField: string;
  /** That option's value. */
  baseUrl: string | undefined;
}

/**
 * `source.http` when given; otherwise a new client from the base URL, the credentials and the rest of
 * `source` (`fetch`, `trustedOrigins`, `timeoutMs`, `retry`, `hooks`, `logger`, `appInfo`, `budget`).
 * A missing base URL and every missing or malformed credential fail together, before anything is
 * sent, as one `ValidationError` (`VALIDATION_ERROR`) naming each option (never its value).
 */
export function httpClientFrom(source: HttpClientSource, defaults: HttpClientDefaults): HttpClient {
  return source.http ?? createHttpClient(checkedOptions(source, defaults, []));
}

/**
 * As {@link httpClientFrom}, but a client it makes is `createHttpCore`'s: the same pipeline without
 * the hooks and the logger (and their code). `hooks` or `logger` in `source` fail in the same
 * `ValidationError`, naming the way to have them (a ready `http` client from `createHttpClient`), so
 * that neither is ever silently dropped.
 */
export function httpCoreFrom(source: HttpClientSource, defaults: HttpClientDefaults): HttpClient {
  if (source.http) return source.http;
  const unread = (["hooks", "logger"] as const)
    .filter((field) => source[field] !== undefined)
    .map((field) => ({
      field,
      message: "is not read by this client: pass `http: createHttpClient({ ..., hooks, logger })` instead",
    }));
  return createHttpCore(checkedOptions(source, defaults, unread));
}

/**
 * The options a client is made with: the base URL, the credentials and the rest of `source`, once a
 * missing base URL, every missing or malformed credential and each of `issues` failed together.
 */
function checkedOptions(
  source: HttpClientSource,
  defaults: HttpClientDefaults,
  issues: { field: string; message: string }[],
): HttpClientOptions {
  const all = [
    ...(defaults.baseUrl
      ? []
      : [{ field: defaults.baseUrlField, message: "is required (or pass a ready `http` client)" }]),
    ...credentialIssues(source),
    ...issues,
  ];
  if (all.length > 0) throw localValidationError(all, `The ${defaults.client} configuration is invalid`);
  // Read by name, as `credentialIssues` read them: an options object holding a credential in a getter
  // or on its prototype (a config class) is sent what was checked, and a package's own options never
  // reach the HTTP client, whatever their names.
  // Given: a missing base URL is the first issue above.
  const options: Record<string, unknown> = { baseUrl: defaults.baseUrl };
  for (const field of PASSED) if (source[field] !== undefined) options[field] = source[field];
  return options as unknown as HttpClientOptions;
}

/** Every option of {@link HttpClientSource} but `http`: what a package client passes on. */
const PASSED = [
  "apiKey",
  "externalUserId",
  "externalUserEmail",
  "sessionToken",
  "workspaceId",
  "fetch",
  "timeoutMs",
  "idleTimeoutMs",
  "minBytesPerSecond",
  "trustedOrigins",
  "hooks",
  "logger",
  "appInfo",
  "budget",
  "retry",
  "telemetry",
] as const satisfies readonly (keyof HttpClientSource)[];

// Fails to compile when an option is added to HttpClientSource but not to PASSED.
const _everyOptionPassed: Exclude<keyof HttpClientSource, "http" | (typeof PASSED)[number]> extends never
  ? true
  : never = true;
