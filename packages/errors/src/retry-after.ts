/**
 * Parses a `Retry-After` header into milliseconds from `now`: delta-seconds (`"12"`, leniently
 * `"1.5"`) or an HTTP-date (a date in the past gives 0). Anything else gives `undefined`.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Only HTTP-dates: Date.parse alone would also take "5" or "2026" as dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Combines the two ways the server says when to retry. Rule: the larger of the two wins, because each
 * is the server's word on the earliest moment a retry can succeed, and retrying before either would be
 * spent on a certain refusal (the header is whole seconds, `retry_info` may be finer: when the header
 * rounds up, waiting for it costs under a second; undershooting costs a whole round trip and budget).
 */
export function combineRetryAfter(
  headerMs: number | undefined,
  retryInfoMs: number | undefined,
): number | undefined {
  if (headerMs === undefined) return retryInfoMs;
  if (retryInfoMs === undefined) return headerMs;
  return Math.max(headerMs, retryInfoMs);
}
