import {
  isPromoReviewError,
  type PromoReviewError,
  PromoReviewError as PromoReviewErrorClass,
} from "@promo-review/errors";
import { errorFromHttp, errorFromTransport, type Redactor, redactorFor } from "@promo-review/errors/internal";
import ky, { type BeforeRequestHook, type Hooks, type KyInstance } from "ky";
import { readBody } from "./body.js";
import { authHeaders, type Credentials, checkCredentials, secretsOf } from "./credentials.js";
import { type StartableDeadline, startableDeadline } from "./deadline.js";
import type { RequestHooks } from "./hooks.js";
import type { Logger } from "./logger.js";
import { type AttemptObservation, createObserver } from "./observe.js";
import { createOriginPolicy } from "./origin.js";
import { isRedirect, nextHop } from "./redirect.js";
import type { RequestBody } from "./request-body.js";
import { DEFAULT_RETRY, isSafeToRetry, type RetryPolicy, retryDelay, sleep } from "./retry.js";
import { newCorrelationId, resolveUrl } from "./url.js";
import { type AppInfo, userAgent } from "./user-agent.js";

/** The default deadline of one attempt: from sending to the last byte of the answer. 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The default longest gap between two pieces of a response body before it counts as stalled. 10 s. */
export const DEFAULT_IDLE_TIMEOUT_MS = 10_000;

/** The most of a success body kept (16 MiB) and of an error body (64 KiB). */
const SUCCESS_LIMIT = 16 * 1024 * 1024;
const ERROR_LIMIT = 65_536;

/** How an {@link HttpClient} talks to one of the two services. */
export interface HttpClientOptions {
  /** The service's base URL (main API `{base_url}` or file service `{files_url}`). */
  baseUrl: string;
  credentials: Credentials;
  /**
   * Further secrets this client never sends but must never show either (the facade's webhook
   * secret): redacted, like the credentials, from every error and from `redact`.
   */
  redactAlso?: readonly string[] | undefined;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumented clients). */
  fetch?: typeof fetch;
  /**
   * The deadline of one attempt, covering the whole exchange: sending the body, the answer's headers
   * and reading its body to the end (redirects followed within it). Default 30 s. Time spent
   * waiting for the rate budget is not counted.
   */
  timeoutMs?: number;
  /** A response body with no byte for this long fails with a `TimeoutError`. Default 10 s. */
  idleTimeoutMs?: number;
  /**
   * Further origins (absolute URLs; only scheme, host and port count) that may receive this client's
   * requests and credentials, for deployments that serve a `statusUrl` or `uploadUrl` elsewhere.
   * Off by default: any URL on another origin than `baseUrl`'s is refused before sending.
   */
  trustedOrigins?: readonly string[];
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
   * ky hooks run on every attempt: the slot of `budget.kyHooks()` from `@promo-review/rate-budget`.
   * A plumbing option for the budget; observe requests with `hooks` instead.
   */
  kyHooks?: Hooks | undefined;
  /** Retry policy for every request of this client (each request may override it), or `false` for none. */
  retry?: Partial<RetryPolicy> | false;
}

/** What one request asks for. */
export interface RequestOptions {
  /** Default `GET`. */
  method?: string;
  /** A JSON body. */
  json?: unknown;
  /** A raw body (bytes, Blob, stream). A stream body is never retried here: it cannot be read twice. */
  body?: RequestBody;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Sent as `X-Correlation-ID` on every attempt; a fresh one is made when absent. */
  correlationId?: string;
  /** Overrides the client's `timeoutMs` for this request. */
  timeoutMs?: number;
  /** Overrides the client's `idleTimeoutMs` for this request. */
  idleTimeoutMs?: number;
  /** Overrides of the client's policy, or `false` for a single attempt. */
  retry?: Partial<RetryPolicy> | false;
  /**
   * Whether repeating the request cannot duplicate work. Default: true for GET, HEAD, PUT, DELETE and
   * OPTIONS. Set it for a POST the service documents as a safe retry (submit, for example).
   */
  idempotent?: boolean;
  /** Called before each retry, with the error that caused it and the wait. */
  onRetry?: (info: { retry: number; error: PromoReviewError; delayMs: number }) => void;
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
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Makes a client for one service. Credentials, `baseUrl` and `trustedOrigins` are checked now (a
 * stray space in a key fails here, not as a 401 later). Every request goes only to the service's
 * origin (or a trusted one) and carries `Authorization`, the user headers and `X-Correlation-ID`;
 * redirects are checked hop by hop (see `nextHop`); each attempt has one deadline over the whole
 * exchange; the given ky hooks (the rate budget) run on every attempt; any failure is an error from
 * `@promo-review/errors`; and only what cannot duplicate work is retried (see `isSafeToRetry`).
 *
 * The credentials live in this function's closure only: no property of the returned object (nor of
 * any error) holds them, so logging or serialising a client prints no secret.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  checkCredentials(options.credentials);
  const policy = createOriginPolicy(options.baseUrl, options.trustedOrigins);
  const secrets = [...secretsOf(options.credentials), ...(options.redactAlso ?? [])];
  const userFetch = options.fetch;
  // A platform fetch called as a method of ky's options object throws "Illegal invocation" in
  // browsers and Workers, so it is always called through a plain function.
  const send: typeof fetch = (input, init) => (userFetch ?? globalThis.fetch)(input, init);
  const hooks = options.kyHooks ?? {};
  const redact = redactorFor(secrets);
  const observer = createObserver({ hooks: options.hooks, logger: options.logger, redact });
  // No User-Agent in a browser: it is not the page's to set, and a CORS preflight could refuse it.
  const agent = userAgent({ sdkVersion: options.sdkVersion, appInfo: options.appInfo });
  const api: KyInstance = ky.create({
    headers: { ...authHeaders(options.credentials), ...(agent ? { "User-Agent": agent } : {}) },
    hooks: {
      ...hooks,
      beforeRequest: [...(hooks.beforeRequest ?? []), startDeadline, sendStreamOnce(send)],
    },
    retry: 0,
    // The exchange's own deadline (started by `startDeadline`) replaces ky's, which stops at the headers.
    timeout: false,
    throwHttpErrors: false,
    redirect: "manual",
    fetch: send,
  });

  /** One attempt: the request and the redirects it may follow, under one deadline. */
  async function attempt<T>(
    first: string,
    method: string,
    correlationId: string,
    request: RequestOptions,
    observed: AttemptObservation,
  ) {
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const idleTimeoutMs = request.idleTimeoutMs ?? options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const deadline = startableDeadline(timeoutMs, request.signal);
    const stream = isStream(request.body);
    let url = first;
    const failed = (raw: unknown): PromoReviewError => {
      if (isPromoReviewError(raw)) return raw;
      const aborted = request.signal?.aborted ?? false;
      return errorFromTransport(raw, {
        method,
        url,
        secrets,
        aborted,
        timedOut:
          !aborted && (deadline.signal.aborted || (raw as { name?: string })?.name === "TimeoutError"),
      });
    };
    try {
      for (let hops = 0; ; hops++) {
        const response = await api(url, {
          method,
          json: request.json,
          body: request.body,
          headers: { "X-Correlation-ID": correlationId, ...request.headers },
          signal: deadline.signal,
          context: { deadline, onSend: observed.sent, ...(stream ? { sendOnce: true } : {}) },
          ...(stream ? { duplex: "half" } : {}),
        } as Parameters<KyInstance>[1]);
        if (isRedirect(response)) {
          await response.body?.cancel().catch(() => {});
          url = nextHop(response, { url, method, replayable: !stream, hops, policy });
          continue;
        }
        const read = { signal: deadline.signal, idleTimeoutMs };
        if (!response.ok) {
          const body = await readBody(response, { ...read, limit: ERROR_LIMIT });
          throw errorFromHttp(
            { status: response.status, headers: response.headers, body },
            { method, url, secrets },
          );
        }
        const text = await readBody(response, { ...read, limit: SUCCESS_LIMIT });
        return parseSuccess<T>(response, text, correlationId, { method, url, secrets });
      }
    } catch (raw) {
      throw failed(raw);
    } finally {
      deadline.clear();
    }
  }

  const resolve = (path: string, method: string) => {
    const url = resolveUrl(options.baseUrl, path);
    policy.check(url, { method });
    return url;
  };

  return {
    baseUrl: options.baseUrl,
    url: (path) => resolve(path, "GET"),
    redact,
    async request<T>(path: string, request: RequestOptions = {}): Promise<HttpResult<T>> {
      const method = (request.method ?? "GET").toUpperCase();
      const url = resolve(path, method);
      const correlationId = request.correlationId ?? newCorrelationId();
      const idempotent = request.idempotent ?? IDEMPOTENT.has(method);
      const single =
        request.retry === false || (options.retry === false && !request.retry) || isStream(request.body);
      const retry: RetryPolicy = { ...DEFAULT_RETRY, ...(options.retry || {}), ...(request.retry || {}) };
      const observation = observer.request(method, url, correlationId);
      const started = Date.now();
      for (let attempts = 1; ; attempts++) {
        const observed = observation.attempt(attempts);
        try {
          const result = await attempt<T>(url, method, correlationId, request, observed);
          observed.ended({ status: result.status });
          observation.finished({ status: result.status, attempts });
          return { ...result, attempts, durationMs: Date.now() - started };
        } catch (error) {
          const typed = error as PromoReviewError;
          observed.ended({ ...(typed.status !== undefined ? { status: typed.status } : {}), error: typed });
          if (single || attempts > retry.limit || !isSafeToRetry(typed, idempotent, retry)) {
            observation.finished({ error: typed, attempts });
            throw typed;
          }
          const delayMs = retryDelay(typed, attempts, retry);
          observed.retrying(typed, delayMs);
          request.onRetry?.({ retry: attempts, error: typed, delayMs });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}

/**
 * The last `beforeRequest` hook but one: starts the attempt's deadline (and tells the observers) once every hook before it
 * (the rate budget's wait) has let the request go.
 */
const startDeadline: BeforeRequestHook = (_request, options) => {
  const context = (options as { context?: { deadline?: StartableDeadline; onSend?: () => void } }).context;
  context?.deadline?.start();
  // The attempt counts as sent from here (after the budget's wait): `beforeRequest` observers run now.
  context?.onSend?.();
};

/**
 * ky clones every request before sending it, keeping the copy for retries. For a stream body the clone
 * tees the stream, and the branch nobody reads buffers the whole body: a 50 MiB chunk costs 50 MiB more
 * memory, and the copying slows the send. A stream body is sent once anyway (it cannot be read twice),
 * so this last `beforeRequest` hook sends such a request itself, uncloned, and hands ky the response;
 * the caller's hooks before it and every `afterResponse` hook still run.
 *
 * It sends the request's parts, not the `Request`: `fetch(request, init)` builds a new Request from
 * it, and the Fetch standard then pipes a stream body through an identity TransformStream (a "proxy"),
 * one more hop for every piece. On Node that hop cost about 3% of upload throughput (a 1 GiB stream
 * upload, 406 against 417 MiB/s). Only fields every runtime accepts are passed (workerd refuses
 * `credentials`, `mode` and `cache`); ky sets nothing else that matters for a streamed request.
 */
function sendStreamOnce(send: typeof fetch): BeforeRequestHook {
  return (request, options) => {
    if (!(options as { context?: { sendOnce?: boolean } }).context?.sendOnce) return undefined;
    // The request's signal carries the attempt's deadline, which runs until the answer is read.
    return send(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: request.signal,
      duplex: "half",
    } as RequestInit);
  };
}

function isStream(body: unknown): boolean {
  return typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
}

function parseSuccess<T>(
  response: Response,
  text: string,
  sentId: string,
  context: { method: string; url: string; secrets: string[] },
): Omit<HttpResult<T>, "attempts" | "durationMs"> {
  const headerId = response.headers.get("x-correlation-id") ?? sentId;
  let data: unknown;
  try {
    data = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new PromoReviewErrorClass({
      code: "UNEXPECTED_RESPONSE",
      message: `The service answered HTTP ${response.status} with a body that is not JSON`,
      status: response.status,
      correlationId: headerId,
      bodyExcerpt: text.slice(0, 200),
      request: context,
      secrets: context.secrets,
    });
  }
  const bodyId = (data as { correlationId?: unknown } | undefined)?.correlationId;
  return {
    data: data as T,
    status: response.status,
    headers: response.headers,
    correlationId: typeof bodyId === "string" ? bodyId : headerId,
  };
}
