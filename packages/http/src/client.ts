/**
 * `createHttpClient`: the one HTTP pipeline of the SDK. A request is built, budgeted, sent, checked
 * hop by hop, read under its deadline and mapped to a typed error (`attempt.ts`), then retried here
 * when that cannot duplicate work. The transport is plain `fetch`: the caller's, else the platform's,
 * with stream bodies on the fastest transport known for the runtime (`#stream-fetch`).
 * @packageDocumentation
 */
import type { PromoReviewError } from "@promo-review/errors";
import { type Redactor, redactorFor } from "@promo-review/errors/internal";
import type { AttemptObserver, ObservedOperation, Observer } from "@promo-review/errors/observe";
import { platformStreamFetch } from "#stream-fetch";
import { userAgent } from "#user-agent";
import { type AttemptRequest, attempt, type ExpectedStatuses, isStream, type Transport } from "./attempt.js";
import type { RequestBudget } from "./budget.js";
import { authHeaders, type Credentials, checkCredentials, secretsOf } from "./credentials.js";
import type { RequestHooks } from "./hooks.js";
import type { Logger } from "./logger.js";
import { bothObservers, hooksObserver } from "./observe.js";
import { createOriginPolicy } from "./origin.js";
import type { RequestBody } from "./request-body.js";
import { DEFAULT_RETRY, isSafeToRetry, type RetryPolicy, retrying } from "./retry.js";
import { newCorrelationId, resolveUrl } from "./url.js";
import type { AppInfo } from "./user-agent.js";
import { HTTP_VERSION } from "./version.js";

/** The default deadline of one attempt: from sending to the last byte of the answer. 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The default longest gap between two pieces of a response body before it counts as stalled. 10 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 10_000;

/** How an {@link HttpClient} talks to one of the two services, apart from the credentials. */
export interface ConnectionOptions {
  /** The service's base URL (main API `{base_url}` or file service `{files_url}`). */
  baseUrl: string;
  /**
   * Further secrets this client never sends but must never show either (the facade's webhook
   * secret): redacted, like the credentials, from every error and from `redact`.
   */
  redactAlso?: readonly string[] | undefined;
  /**
   * A `fetch` to use instead of the platform's (tests, proxies, instrumented clients), for every
   * request, stream bodies included. Default: the platform's, and on Node `nodeStreamFetch` for
   * stream bodies (see `@promo-review/http/node`).
   */
  fetch?: typeof fetch | undefined;
  /**
   * The deadline of one attempt, covering the whole exchange: sending the body, the answer's headers
   * and reading its body to the end (redirects followed within it). Default 30 s. Time spent
   * waiting for the rate budget is not counted.
   */
  timeoutMs?: number | undefined;
  /** A response body with no byte for this long fails with a `TimeoutError`. Default 10 s. */
  idleTimeoutMs?: number | undefined;
  /**
   * The low-speed limit of a response body (curl's `--speed-limit`, `idleTimeoutMs` its
   * `--speed-time`): a body still arriving that averaged fewer bytes a second than this over a
   * stretch of `idleTimeoutMs` fails with a `TimeoutError` saying how slow it came, long before
   * `timeoutMs` when that is large (a chunk PUT's). Default 0: off, only the idle gap counts.
   */
  minBytesPerSecond?: number | undefined;
  /**
   * Further origins (absolute URLs; only scheme, host and port count) that may receive this client's
   * requests and credentials, for deployments that serve a `statusUrl` or `uploadUrl` elsewhere.
   * Off by default: any URL on another origin than `baseUrl`'s is refused before sending.
   */
  trustedOrigins?: readonly string[] | undefined;
  /** Observers of every request: `beforeRequest`, `afterResponse`, `beforeRetry` (see {@link RequestHooks}). */
  hooks?: RequestHooks | undefined;
  /**
   * Where a line per request (`debug`; `warn` when it failed) and per retry (`info`) goes: `console`, a
   * pino logger, ... Default: none. URLs are redacted and headers never logged.
   */
  logger?: Logger | undefined;
  /** The application named in the User-Agent after the SDK: `MyApp/1.2 (+https://example.com)`. */
  appInfo?: AppInfo | undefined;
  /** The SDK version the User-Agent names. Default: this package's; the facade passes its own. */
  sdkVersion?: string | undefined;
  /**
   * A rate budget waited for before every attempt (and redirect hop), and told about every 429:
   * `createRateBudget(...)` from `@promo-review/rate-budget`, or anything with its `acquire` and
   * `learn` (see {@link RequestBudget}). Default: none.
   */
  budget?: RequestBudget | undefined;
  /** Retry policy for every request of this client (each request may override it), or `false` for none. */
  retry?: Partial<RetryPolicy> | false | undefined;
  /**
   * What observes every request (and, in the packages, every operation): `openTelemetry({ ... })` from
   * `@promo-review/opentelemetry`, or any `Observer` of `@promo-review/errors/observe`. It hears the
   * redacted URL, never a header; headers it returns for a request (a trace context) go only to the
   * configured origins. Default: none, and nothing is observed but through `hooks` and `logger`.
   */
  telemetry?: Observer | undefined;
}

/** Everything `createHttpClient` takes: the connection and, flat beside it, the credentials. */
export type HttpClientOptions = ConnectionOptions & Credentials;

/**
 * Everything {@link createHttpCore} takes: {@link HttpClientOptions} but `hooks` and `logger`, which
 * only `createHttpClient` reads.
 */
export type HttpCoreOptions = Omit<ConnectionOptions, "hooks" | "logger"> & Credentials;

/** What one request asks for. A field left `undefined` is not given (the client's own applies). */
export interface RequestOptions {
  /** Default `GET`. */
  method?: string;
  /** A JSON body. */
  json?: unknown;
  /** A raw body (bytes, Blob, stream). A stream body is never retried here: it cannot be read twice. */
  body?: RequestBody;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Sent as `X-Correlation-ID` on every attempt; a fresh one is made when absent. */
  correlationId?: string | undefined;
  /** Overrides the client's `timeoutMs` for this request. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `idleTimeoutMs` for this request. */
  idleTimeoutMs?: number | undefined;
  /** Overrides the client's `minBytesPerSecond` for this request. */
  minBytesPerSecond?: number | undefined;
  /** Overrides of the client's policy, or `false` for a single attempt. */
  retry?: Partial<RetryPolicy> | false | undefined;
  /**
   * Statuses besides 2xx that are this request's answer (`[308]`, or a predicate): such an answer is
   * read and parsed as a 2xx is, resolves with its `status`, is logged at `debug` and handed to
   * `afterResponse` as an answer, never raised as an error. A 3xx with a `Location` stays a redirect
   * (checked and followed, or refused, hop by hop). Default: only 2xx.
   */
  expect?: ExpectedStatuses | undefined;
  /**
   * Whether repeating the request cannot duplicate work. Default: true for GET, HEAD, PUT, DELETE and
   * OPTIONS. Set it for a POST the service documents as a safe retry (submit, for example).
   */
  idempotent?: boolean;
  /** Called before each retry, with the error that caused it and the wait. */
  onRetry?: (info: { retry: number; error: PromoReviewError; delayMs: number }) => void;
  /** The operation the request belongs to, as the client's `telemetry` started it. */
  parent?: ObservedOperation | undefined;
  /**
   * The path's template as the spec writes it (`/v1/promotions/{promotionId}/versions`): the CLIENT
   * span's name (`POST /v1/promotions/{promotionId}/versions`) and `url.template`. Default: the path
   * itself when it holds no id (only letters, hyphens and underscores between its slashes, bar `v1`:
   * `/v1/promotions`), else none, and the span is named by the method alone (`GET`).
   */
  urlTemplate?: string | undefined;
}

/** A successful answer. */
export interface HttpResult<T> {
  /** The parsed JSON body (`undefined` when empty). */
  data: T;
  status: number;
  headers: Headers;
  /** From the body, else the `X-Correlation-ID` response header, else the id that was sent. */
  correlationId: string;
  /** How many attempts it took (1 when the first succeeded). */
  attempts: number;
  /** Milliseconds from the first attempt's start to the answer's last byte, waits between retries included. */
  durationMs: number;
}

/** A client for one service: authenticated, correlated, mapped to typed errors, retried safely. */
export interface HttpClient {
  readonly baseUrl: string;
  /** Sends one request (with retries per policy) and parses the JSON answer. Throws typed errors. */
  request<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  /**
   * Resolves a path or a returned URL (a `statusUrl`) against the base URL, keeping its query
   * verbatim. Throws a `ForeignOriginError` for a URL on an origin this client does not trust.
   */
  url(path: string): string;
  /**
   * Removes this client's credentials from a text, for an error a package makes from one of this
   * client's answers (`unexpectedResponse({ ..., redact: http.redact })`). The credentials stay in
   * its closure: the function prints as a function, never as the values.
   */
  readonly redact: Redactor;
  /**
   * The observer this client publishes to (its `telemetry` option), which the packages built on it
   * publish their operations to as well: a client shared by several packages carries it to each.
   * Optional, so that an `HttpClient` a user wrote needs no change (then nothing is observed).
   */
  readonly telemetry?: Observer | undefined;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Makes a client for one service. Credentials, `baseUrl` and `trustedOrigins` are checked now (a
 * stray space in a key fails here, not as a 401 later). Every request goes only to the service's
 * origin (or a trusted one) and carries `Authorization`, the user headers and `X-Correlation-ID`;
 * the `budget` is waited for before each attempt; redirects are checked hop by hop (see `nextHop`);
 * each attempt has one deadline over the whole exchange; any failure is an error from
 * `@promo-review/errors`; and only what cannot duplicate work is retried (see `isSafeToRetry`).
 *
 * The credentials live in this function's closure only: no property of the returned object (nor of
 * any error) holds them, so logging or serialising a client prints no secret.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  // The caller's hooks and logger, and the client's telemetry: without any of them no observation code runs.
  return pipeline(options, (redact) =>
    bothObservers(hooksObserver({ hooks: options.hooks, logger: options.logger, redact }), options.telemetry),
  );
}

/**
 * The same pipeline as {@link createHttpClient} (the same checks, origin policy, budget, deadlines,
 * typed errors and retries), observed by its `telemetry` alone: no `hooks`, no `logger`, and none of
 * their code in a bundle. What a slim client builds on; a caller who wants hooks or a logger passes
 * that client a `createHttpClient` instead.
 */
export function createHttpCore(options: HttpCoreOptions): HttpClient {
  return pipeline(options, () => options.telemetry);
}

/** The pipeline of a client, observed by what `observe` makes with the client's redactor. */
function pipeline(options: HttpCoreOptions, observe: (redact: Redactor) => Observer | undefined): HttpClient {
  checkCredentials(options);
  const policy = createOriginPolicy(options.baseUrl, options.trustedOrigins);
  const secrets = [...secretsOf(options), ...(options.redactAlso ?? [])];
  const userFetch = options.fetch;
  // Called as a plain function: a platform fetch called as a method of another object throws
  // "Illegal invocation" in browsers and Workers.
  const send: typeof fetch = (input, init) => (userFetch ?? globalThis.fetch)(input, init);
  const streamFetch = userFetch ? undefined : platformStreamFetch();
  const redact = redactorFor(secrets);
  // No User-Agent in a browser: it is not the page's to set, and a CORS preflight could refuse it.
  const agent = userAgent({ sdkVersion: options.sdkVersion, appInfo: options.appInfo });
  const transport: Transport = {
    send,
    sendStream: streamFetch ?? send,
    // Left out, not undefined: `Headers` would send the text "undefined" as the User-Agent.
    headers: { ...authHeaders(options), ...(agent ? { "User-Agent": agent } : {}) },
    budget: options.budget,
    policy,
    secrets,
    redact,
  };

  const resolve = (path: string, method: string) => {
    const url = resolveUrl(options.baseUrl, path);
    policy.check(url, { method });
    return url;
  };

  const { telemetry } = options;
  const observer = observe(redact);
  const source = { name: "@promo-review/http", version: HTTP_VERSION };

  return {
    baseUrl: options.baseUrl,
    url: (path) => resolve(path, "GET"),
    redact,
    telemetry,
    async request<T>(path: string, request: RequestOptions = {}): Promise<HttpResult<T>> {
      const method = (request.method ?? "GET").toUpperCase();
      const url = resolve(path, method);
      const correlationId = request.correlationId ?? newCorrelationId();
      const idempotent = request.idempotent ?? IDEMPOTENT.has(method);
      const single =
        request.retry === false || (options.retry === false && !request.retry) || isStream(request.body);
      const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry, ...request.retry };
      // The request as each attempt sends it: its own fields, with the client's defaults resolved.
      const sent: AttemptRequest = {
        ...request,
        url,
        method,
        correlationId,
        timeoutMs: request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        idleTimeoutMs: request.idleTimeoutMs ?? options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
        minBytesPerSecond: request.minBytesPerSecond ?? options.minBytesPerSecond ?? 0,
      };
      const { parent } = request;
      const observation = observer?.requestStarted?.({
        source,
        redact,
        method,
        path,
        url: redact(url),
        urlTemplate: request.urlTemplate,
        correlationId,
        parent,
      });
      const started = Date.now();
      // The observer of the attempt under way (attempts run one after another): told of the retry that
      // follows its failure, whose number `onRetry` is given.
      let current: AttemptObserver | undefined;
      return retrying(
        async (attempts) => {
          current = observation?.attemptStarted?.(attempts);
          try {
            const result = await attempt<T>(transport, { ...sent, parent }, current);
            current?.ended?.({ status: result.status });
            observation?.ended?.({ status: result.status, attempts });
            return { ...result, attempts, durationMs: Date.now() - started };
          } catch (error) {
            const typed = error as PromoReviewError;
            current?.ended?.({ status: typed.status, error: typed });
            throw typed;
          }
        },
        {
          shouldRetry(error, attempts) {
            const typed = error as PromoReviewError;
            const again = !single && attempts <= retry.limit && isSafeToRetry(typed, idempotent, retry);
            if (!again) observation?.ended?.({ error: typed, attempts });
            return again;
          },
          policy: retry,
          onRetry(error, attempts, delayMs) {
            const typed = error as PromoReviewError;
            current?.retrying?.({ error: typed, delayMs, attempt: attempts });
            request.onRetry?.({ retry: attempts, error: typed, delayMs });
          },
          signal: request.signal,
        },
      );
    },
  };
}
