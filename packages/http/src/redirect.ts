import { RedirectError } from "@promo-review/errors";
import type { OriginPolicy } from "./origin.js";

/** The most redirects one attempt follows (all on the service's origin). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const READS = new Set(["GET", "HEAD"]);

/**
 * Whether `response` is a redirect the client was handed instead of following it (`redirect:
 * "manual"`): Node's fetch gives the real 3xx with its `Location`, a browser an `opaqueredirect`
 * with status 0 and no headers. A 3xx without `Location` points nowhere, so it is an answer, not a
 * redirect: a resumable-upload service acknowledges a chunk with `308` and a `Range` header, and a
 * caller reads it as such (any other such answer is an error like every non-2xx).
 */
export function isRedirect(response: Response): boolean {
  return (
    response.type === "opaqueredirect" ||
    (REDIRECT_STATUSES.has(response.status) && response.headers.has("location"))
  );
}

/** What the next hop needs to know about the request being redirected. */
export interface HopContext {
  url: string;
  method: string;
  /** Whether the body can be sent again (JSON, bytes; not a stream). */
  replayable: boolean;
  /** Redirects followed so far in this attempt. */
  hops: number;
  policy: OriginPolicy;
}

/**
 * The URL to follow `response` to, or a typed error. The rules, in order: a target on a foreign
 * origin is a `ForeignOriginError` (nothing re-sent, whatever the code); the hop limit and an opaque
 * or `Location`-less redirect are a `RedirectError`; a GET or HEAD follows any redirect code; a
 * write follows only 307/308 (which keep method and body) and only when its body can be sent again.
 * A 301/302/303 after a write is refused rather than turned into a GET: the write would silently
 * become a read and report success for something never created.
 */
export function nextHop(response: Response, context: HopContext): string {
  const { url, method } = context;
  const refuse = (why: string) =>
    new RedirectError({
      code: "REDIRECT_REFUSED",
      message: `${method} redirect (HTTP ${response.status}) not followed: ${why}`,
      status: response.status || undefined,
      correlationId: response.headers.get("x-correlation-id") ?? undefined,
    });
  if (response.type === "opaqueredirect") {
    throw refuse("an opaque redirect hides its target");
  }
  const location = response.headers.get("location");
  let target: string;
  try {
    if (!location) throw new TypeError("no Location");
    target = new URL(location, url).href;
  } catch {
    throw refuse("no valid Location");
  }
  context.policy.check(target, { method, redirect: true });
  if (context.hops >= MAX_REDIRECTS) throw refuse(`over ${MAX_REDIRECTS} hops`);
  if (READS.has(method)) return target;
  if (response.status !== 307 && response.status !== 308) {
    throw refuse(`it would turn the ${method} into a GET`);
  }
  if (!context.replayable) throw refuse("a stream body cannot be sent twice");
  return target;
}
