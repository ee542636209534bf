import { localValidationError, ParentNotFoundError, type PromoReviewError } from "@promo-review/errors";
import {
  type Credentials,
  createHttpClient,
  DEFAULT_RETRY,
  type HttpClient,
  type HttpResult,
  retryDelay,
  sleep,
} from "@promo-review/http";

/**
 * The reply path used when none is given. The spec does not show the endpoint for posting a comment
 * reply (a documented gap), only that the reply carries `parentCommentId`; pass `path` once it is known.
 */
export const DEFAULT_REPLY_PATH = "/v1/comments";

/** Options of {@link replyToComment}. */
export interface ReplyToCommentOptions {
  /** A client from `@promo-review/http` (shares auth, correlation ids and rate-budget hooks); or give the next three. */
  client?: HttpClient;
  /** The main API base URL, when no `client` is given. */
  baseUrl?: string;
  /** API key and external user id, when no `client` is given. */
  credentials?: Credentials;
  /** A `fetch` to use, when no `client` is given. */
  fetch?: typeof fetch;
  /** The issue's `commentId` from the event; sent as `parentCommentId`. */
  commentId: string;
  /** The reply's other fields (their names are not in the spec), for example `{ content: "Fixed in v3" }`. */
  body?: Record<string, unknown>;
  /** The path to POST to, or a function of the comment id (default {@link DEFAULT_REPLY_PATH}). */
  path?: string | ((commentId: string) => string);
  /** Attempts in all while the answer is `PARENT_NOT_FOUND` (default 8). */
  maxAttempts?: number;
  /** First backoff step, doubled each time, full jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Ceiling of one backoff step (default 5 s). */
  maxDelayMs?: number;
  /** Random source for the jitter, in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Stops waiting and sending; the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Called before each wait, with the `ParentNotFoundError` that caused it. */
  onRetry?: (info: { attempt: number; error: PromoReviewError; delayMs: number }) => void;
}

/** The reply's answer, and how many attempts it took. */
export type ReplyResult<T> = HttpResult<T> & { replyAttempts: number };

function clientOf(options: ReplyToCommentOptions): HttpClient {
  if (options.client) return options.client;
  if (!options.baseUrl || !options.credentials) {
    throw localValidationError(
      [
        {
          field: options.baseUrl ? "credentials" : "baseUrl",
          message: "is required when no `client` is given",
        },
      ],
      "replyToComment needs either `client` or both `baseUrl` and `credentials`",
    );
  }
  return createHttpClient({
    baseUrl: options.baseUrl,
    credentials: options.credentials,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * Replies to the comment behind an issue, sending its `commentId` as `parentCommentId`. Comment
 * indexing is asynchronous, so a reply sent right after the webhook may be answered
 * `PARENT_NOT_FOUND`: that answer means nothing was created, so the reply is sent again with
 * backoff (honouring a `Retry-After`) until it is accepted, `maxAttempts` is spent (the last
 * `ParentNotFoundError` is thrown) or `signal` aborts. Any other error is thrown at once.
 */
export async function replyToComment<T = unknown>(options: ReplyToCommentOptions): Promise<ReplyResult<T>> {
  const client = clientOf(options);
  const path =
    typeof options.path === "function"
      ? options.path(options.commentId)
      : (options.path ?? DEFAULT_REPLY_PATH);
  const maxAttempts = options.maxAttempts ?? 8;
  const policy = {
    ...DEFAULT_RETRY,
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    random: options.random ?? Math.random,
  };
  const json = { ...options.body, parentCommentId: options.commentId };
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await client.request<T>(path, {
        method: "POST",
        json,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { ...result, replyAttempts: attempt };
    } catch (error) {
      if (!(error instanceof ParentNotFoundError) || attempt >= maxAttempts) throw error;
      const delayMs = retryDelay(error, attempt, policy);
      options.onRetry?.({ attempt, error, delayMs });
      await sleep(delayMs, options.signal);
    }
  }
}
