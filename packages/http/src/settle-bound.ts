import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import { DEFAULT_TIMEOUT_MS } from "./client.js";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";

/**
 * The longest one `request` can take before it settles (resolves or rejects), budget waits aside:
 * every attempt within its deadline, and between attempts the longest wait the policy allows (a
 * backoff step, the upstream window, or a server-given wait up to `MAX_SERVER_WAIT_MS`; a longer
 * one fails at once). With the defaults: 4 attempts of 30 s and 3 waits of at most one hour.
 */
export function settleBoundMs(
  options: { timeoutMs?: number; retry?: Partial<RetryPolicy> | false } = {},
): number {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retry = { ...DEFAULT_RETRY, ...(options.retry || {}) };
  const retries = options.retry === false ? 0 : retry.limit;
  const longestWait = Math.max(retry.maxDelayMs, retry.upstreamDelayMs[1], MAX_SERVER_WAIT_MS);
  return (retries + 1) * timeoutMs + retries * longestWait;
}
