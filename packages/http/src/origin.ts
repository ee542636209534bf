import { ForeignOriginError } from "@promo-review/errors";
import { localValidationError } from "@promo-review/errors/internal";

/** Which origins a client's credentials may go to. */
export interface OriginPolicy {
  /** The configured service's origin (`scheme://host:port` as `new URL` normalises it). */
  readonly origin: string;
  /**
   * Throws a `ForeignOriginError` naming both origins when `url` is on an origin that is neither the
   * service's nor trusted; `redirect` says the URL came from a redirect's `Location`.
   */
  check(url: string, context: { method: string; redirect?: boolean }): void;
}

/**
 * The origin of a URL after WHATWG parsing: scheme and host lower-cased, IDN to punycode, the
 * default port dropped. Comparing these (never the raw text) is what makes `HTTP://HOST:80` equal
 * `http://host`. `undefined` for a URL that does not parse.
 */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
}

/**
 * The origin policy of one client: credentials go only to the origin of `baseUrl` and to the
 * `trustedOrigins` a deployment lists (each an absolute http(s) URL; only its origin counts).
 * Bad configuration fails here, naming the field but never repeating the value (a misplaced key
 * pasted as a URL must not end up in a log).
 */
export function createOriginPolicy(baseUrl: string, trustedOrigins: readonly string[] = []): OriginPolicy {
  const allowed = new Set<string>();
  // Checked in turn, so that the field named is the first bad one.
  [baseUrl, ...trustedOrigins].forEach((url, index) => {
    const origin = originOf(url);
    if (!/^https?:/.test(origin ?? "")) {
      throw localValidationError(
        [
          {
            field: index ? `trustedOrigins.${index - 1}` : "baseUrl",
            message: "is not an absolute http(s) URL",
          },
        ],
        "The client configuration is invalid",
      );
    }
    allowed.add(origin as string);
  });
  const origin = originOf(baseUrl) as string;
  return {
    origin,
    check(url, { method, redirect = false }) {
      const target = originOf(url);
      if (target !== undefined && allowed.has(target)) return;
      const named = target ?? "an unparsable URL";
      throw new ForeignOriginError({
        origin: named,
        expectedOrigin: origin,
        message: `${redirect ? "Redirected" : "Refused"} ${method} to ${named}, not ${origin}: nothing was sent (credentials go to their own origin only; see trustedOrigins)`,
      });
    },
  };
}
