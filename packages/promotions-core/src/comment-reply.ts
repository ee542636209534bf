/**
 * Why a comment reply is sent again. Comment indexing is asynchronous, so a reply sent right after the
 * webhook may be answered `PARENT_NOT_FOUND`: that means nothing was created, so it may be resent.
 */
import { ParentNotFoundError } from "@promo-review/errors";
import { DEFAULT_RETRY, retrying } from "@promo-review/http";
import type { ReplyOptions } from "./types.js";

/**
 * Runs `send` (attempt 1, 2, ...) while it fails with `PARENT_NOT_FOUND`, with backoff (honouring a
 * `Retry-After`), until it is accepted, `maxAttempts` is spent (the last `ParentNotFoundError` is
 * thrown) or the signal aborts. Any other error is thrown at once: the reply is a POST and is never
 * resent after an answer that may mean it was created.
 */
export function untilParentIndexed<R>(
  send: (attempt: number) => Promise<R>,
  options: ReplyOptions,
): Promise<R> {
  const maxAttempts = options.maxAttempts ?? 8;
  const policy = {
    ...DEFAULT_RETRY,
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    random: options.random ?? Math.random,
  };
  return retrying(send, {
    shouldRetry: (error, attempt) => error instanceof ParentNotFoundError && attempt < maxAttempts,
    policy,
    onRetry: (error, attempt, delayMs) =>
      options.onRetry?.({ attempt, error: error as ParentNotFoundError, delayMs }),
    signal: options.signal,
  });
}
