/**
 * One attempt of a request, the steps in the order they happen: wait for the budget, start the
 * deadline, send, follow (or refuse) redirects hop by hop, read the body under the deadline, and map
 * the outcome to a result or a typed error. `client.ts` runs attempts and decides on retries.
 * @packageDocumentation
 */
import { isPromoReviewError, PromoReviewError } from "@promo-review/errors";
import { errorFromHttp, errorFromTransport, type Redactor } from "@promo-review/errors/internal";
import type { AttemptObserver, ObservedOperation } from "@promo-review/errors/observe";
import { readBody } from "./body.js";
import type { BudgetAdmission, BudgetedRequest, RequestBudget } from "./budget.js";
import { startableDeadline } from "./deadline.js";
import type { OriginPolicy } from "./origin.js";
import { isRedirect, nextHop } from "./redirect.js";
import type { RequestBody } from "./request-body.js";

/** The most of a success body kept (16 MiB) and of an error body (64 KiB). */
const SUCCESS_LIMIT = 16 * 1024 * 1024;
const ERROR_LIMIT = 65_536;

/** What every attempt of one client shares. */
export interface Transport {
  /** Sends a request without a stream body (called with a `Request`). */
  send: typeof fetch;
  /** Sends a request with a stream body (called with the URL and an `init` holding the very stream). */
  sendStream: typeof fetch;
  /** The client's own headers: authentication and User-Agent. */
  headers: Record<string, string>;
  budget: RequestBudget | undefined;
  policy: OriginPolicy;
  secrets: string[];
  /** The client's redactor: every URL an observer hears of goes through it. */
  redact: Redactor;
}

/** What one attempt sends, with its limits already resolved. */
export interface AttemptRequest {
  url: string;
  method: string;
  correlationId: string;
  json?: unknown;
  body?: RequestBody | undefined;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  idleTimeoutMs: number;
  /** The low-speed limit of the answer's body (see `ConnectionOptions.minBytesPerSecond`); 0: none. */
  minBytesPerSecond: number;
  /** Statuses besides 2xx that are this request's answer, not a failure (see `RequestOptions.expect`). */
  expect?: ExpectedStatuses | undefined;
  /** The operation waiting: the budget records its wait under it. */
  parent?: ObservedOperation | undefined;
}

/**
 * The statuses a request takes as its answer on top of every 2xx: a list (`[308]`) or a predicate.
 * A status here is read and parsed as a success is, observed as an answer, and never raised.
 */
export type ExpectedStatuses = readonly number[] | ((status: number) => boolean);

/** Whether `status` is an answer to a request that expects `expected` (every 2xx always is). */
export function isExpected(status: number, expected: ExpectedStatuses | undefined): boolean {
  if (status >= 200 && status < 300) return true;
  if (expected === undefined) return false;
  return typeof expected === "function" ? expected(status) : expected.includes(status);
}

/** A successful attempt, before the retry loop adds `attempts` and `durationMs`. */
export interface AttemptResult<T> {
  data: T;
  status: number;
  headers: Headers;
  correlationId: string;
}

/** Whether `body` is a stream: sent once, never replayed, never cloned. */
export function isStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
}

/** One attempt: the request and the redirects it may follow, under one deadline. Throws typed errors only. */
export async function attempt<T>(
  transport: Transport,
  request: AttemptRequest,
  observed: AttemptObserver | undefined,
): Promise<AttemptResult<T>> {
  const { method } = request;
  const { secrets } = transport;
  const deadline = startableDeadline(request.timeoutMs, request.signal);
  const stream = isStream(request.body);
  let url = request.url;
  try {
    for (let hops = 0; ; hops++) {
      const hop = url;
      const response = await sendHop(transport, { ...request, url }, deadline.signal, (waited) => {
        // The attempt counts as sent from here, after the budget's wait: time and observers start now.
        deadline.start();
        const added = observed?.sent?.({ url: transport.redact(hop), ...(waited ? { waited } : {}) });
        if (!added) return undefined;
        // The hop was checked before sending; checked again here so that no path ever carries what an
        // observer adds (a trace context) to another origin.
        try {
          transport.policy.check(hop, { method });
        } catch {
          return undefined;
        }
        return added;
      });
      observed?.answered?.(response.status);
      if (isRedirect(response)) {
        await response.body?.cancel().catch(() => {});
        url = nextHop(response, { url, method, replayable: !stream, hops, policy: transport.policy });
        observed?.redirected?.();
        continue;
      }
      const { idleTimeoutMs, minBytesPerSecond } = request;
      const read = { signal: deadline.signal, idleTimeoutMs, minBytesPerSecond };
      if (!isExpected(response.status, request.expect)) {
        const body = await readBody(response, { ...read, limit: ERROR_LIMIT });
        // The budget learns from a 429 through a copy: the body was read here, under the deadline.
        if (response.status === 429 && transport.budget) {
          const copy = new Response(body, { status: 429, headers: response.headers });
          await transport.budget.learn(copy, { method, url });
        }
        throw errorFromHttp(
          { status: response.status, headers: response.headers, body },
          { method, url, secrets },
        );
      }
      const text = await readBody(response, { ...read, limit: SUCCESS_LIMIT });
      return parseSuccess<T>(response, text, request.correlationId, { method, url, secrets });
    }
  } catch (raw) {
    if (isPromoReviewError(raw)) throw raw;
    const aborted = request.signal?.aborted ?? false;
    const timedOut =
      !aborted && (deadline.signal.aborted || (raw as { name?: string })?.name === "TimeoutError");
    throw errorFromTransport(raw, { method, url, secrets, aborted, timedOut });
  } finally {
    deadline.clear();
  }
}

/**
 * One hop on the wire: the budget admits it (every hop is a request the service counts), `onSend`
 * starts the clock, the request goes out, and the admission is settled when the answer (or the
 * failure) came back.
 *
 * A stream body goes to `sendStream` as the URL plus an `init` holding the very stream given: wrapping
 * it in a `Request` would make the Fetch standard pipe it through one more stream for every piece
 * (and a clone for retries would tee and buffer all of it). Other bodies go as a `Request`.
 */
async function sendHop(
  transport: Transport,
  request: AttemptRequest,
  signal: AbortSignal,
  onSend: (waited: BudgetAdmission["waited"]) => Record<string, string> | undefined,
): Promise<Response> {
  const headers = new Headers(transport.headers);
  headers.set("X-Correlation-ID", request.correlationId);
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
  const { method, url } = request;
  const init = { method, headers, redirect: "manual", signal } as const;
  let send: () => Promise<Response>;
  let budgeted: BudgetedRequest;
  let built: Request | undefined;
  if (isStream(request.body)) {
    const streamed = { ...init, body: request.body, duplex: "half" } as RequestInit;
    send = () => transport.sendStream(url, streamed);
    budgeted = { method, url: new URL(url).href };
  } else {
    let body = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    // An absent body is `undefined` here, which a `RequestInit` reads as no body at all.
    const made = new Request(url, { ...init, body });
    built = made;
    send = () => transport.send(made);
    budgeted = { method, url: made.url };
  }
  const { parent } = request;
  const admission = await transport.budget?.acquire(budgeted, {
    signal,
    ticket: true,
    ...(parent ? { operation: parent } : {}),
  });
  // The trace's headers (`traceparent`) exist only once the hop's span started, after the wait. The
  // stream's `init` holds `headers` itself; a built `Request` copied them, so they go on its own.
  const added = onSend(admission?.waited);
  for (const [name, value] of Object.entries(added ?? {})) {
    headers.set(name, value);
    built?.headers.set(name, value);
  }
  try {
    return await send();
  } finally {
    admission?.settle();
  }
}

function parseSuccess<T>(
  response: Response,
  text: string,
  sentId: string,
  context: { method: string; url: string; secrets: string[] },
): AttemptResult<T> {
  const headerId = response.headers.get("x-correlation-id") ?? sentId;
  let data: unknown;
  try {
    data = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new PromoReviewError({
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
