import {
  errorFromResponse,
  errorFromTransport,
  isPromoReviewError,
  type PromoReviewError,
  PromoReviewError as PromoReviewErrorClass,
  readTextCapped,
} from "@promo-review/errors";
import ky, { type BeforeRequestHook, type Hooks, type KyInstance } from "ky";
import type { RequestBody } from "./body.js";
import { authHeaders, type Credentials, checkCredentials, secretsOf } from "./credentials.js";
import { deadlineSignal } from "./deadline.js";
import { DEFAULT_RETRY, isSafeToRetry, type RetryPolicy, retryDelay, sleep } from "./retry.js";
import { newCorrelationId, resolveUrl } from "./url.js";

/** How an {@link HttpClient} talks to one of the two services. */
export interface HttpClientOptions {
  /** The service's base URL (main API `{base_url}` or file service `{files_url}`). */
  baseUrl: string;
  credentials: Credentials;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumented clients). */
  fetch?: typeof fetch;
  /** Per-attempt timeout. Default 30 s. */
  timeoutMs?: number;
  /** ky hooks run on every attempt, for example `budget.kyHooks()` from `@promo-review/rate-budget`. */
  hooks?: Hooks;
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
  timeoutMs?: number;
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
}

/** A client for one service: authenticated, correlated, mapped to typed errors, retried safely. */
export interface HttpClient {
  readonly baseUrl: string;
  /** Sends one request (with retries per policy) and parses the JSON answer. Throws typed errors. */
  request<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  /** Resolves a path or a returned URL (a `statusUrl`) against the base URL, keeping its query verbatim. */
  url(path: string): string;
  /** Values redacted from every error. */
  readonly secrets: readonly string[];
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Makes a client for one service. Credentials are checked now (a stray space in a key fails here, not
 * as a 401 later). Every request carries `Authorization`, the user headers and `X-Correlation-ID`;
 * runs the given ky hooks (the rate budget) on every attempt; maps any failure to an error from
 * `@promo-review/errors`; and retries only what cannot duplicate work (see `isSafeToRetry`).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  checkCredentials(options.credentials);
  const secrets = secretsOf(options.credentials);
  const userFetch = options.fetch;
  // A platform fetch called as a method of ky's options object throws "Illegal invocation" in
  // browsers and Workers, so it is always called through a plain function.
  const send: typeof fetch = (input, init) => (userFetch ?? globalThis.fetch)(input, init);
  const hooks = options.hooks ?? {};
  const api: KyInstance = ky.create({
    headers: authHeaders(options.credentials),
    hooks: { ...hooks, beforeRequest: [...(hooks.beforeRequest ?? []), sendStreamOnce(send)] },
    retry: 0,
    throwHttpErrors: false,
    fetch: send,
  });

  async function attempt<T>(url: string, method: string, correlationId: string, request: RequestOptions) {
    let response: Response;
    try {
      response = await api(url, {
        method,
        json: request.json,
        body: request.body,
        headers: { "X-Correlation-ID": correlationId, ...request.headers },
        signal: request.signal,
        timeout: request.timeoutMs ?? options.timeoutMs ?? 30_000,
        ...(isStream(request.body)
          ? {
              duplex: "half",
              context: { sendOnce: { timeoutMs: request.timeoutMs ?? options.timeoutMs ?? 30_000 } },
            }
          : {}),
      } as Parameters<KyInstance>[1]);
    } catch (raw) {
      if (isPromoReviewError(raw)) throw raw;
      const aborted = request.signal?.aborted ?? false;
      throw errorFromTransport(raw, {
        method,
        url,
        secrets,
        aborted,
        timedOut: !aborted && (raw as { name?: string })?.name === "TimeoutError",
      });
    }
    if (!response.ok) throw await errorFromResponse(response, { method, url, secrets });
    return parseSuccess<T>(response, correlationId, { method, url, secrets });
  }

  return {
    baseUrl: options.baseUrl,
    secrets,
    url: (path) => resolveUrl(options.baseUrl, path),
    async request<T>(path: string, request: RequestOptions = {}): Promise<HttpResult<T>> {
      const url = resolveUrl(options.baseUrl, path);
      const method = (request.method ?? "GET").toUpperCase();
      const correlationId = request.correlationId ?? newCorrelationId();
      const idempotent = request.idempotent ?? IDEMPOTENT.has(method);
      const single =
        request.retry === false || (options.retry === false && !request.retry) || isStream(request.body);
      const policy: RetryPolicy = { ...DEFAULT_RETRY, ...(options.retry || {}), ...(request.retry || {}) };
      for (let attempts = 1; ; attempts++) {
        try {
          const result = await attempt<T>(url, method, correlationId, request);
          return { ...result, attempts };
        } catch (error) {
          const typed = error as PromoReviewError;
          if (single || attempts > policy.limit || !isSafeToRetry(typed, idempotent, policy)) throw typed;
          const delayMs = retryDelay(typed, attempts, policy);
          request.onRetry?.({ retry: attempts, error: typed, delayMs });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}

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
    const once = (options as { context?: { sendOnce?: { timeoutMs: number } } }).context?.sendOnce;
    if (!once) return undefined;
    const limit = deadlineSignal(once.timeoutMs, request.signal);
    return send(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: request.redirect,
      signal: limit.signal,
      duplex: "half",
    } as RequestInit).finally(limit.clear);
  };
}

function isStream(body: unknown): boolean {
  return typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
}

async function parseSuccess<T>(
  response: Response,
  sentId: string,
  context: { method: string; url: string; secrets: string[] },
): Promise<Omit<HttpResult<T>, "attempts">> {
  const text = await readTextCapped(response, 16 * 1024 * 1024);
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
