import { ForeignOriginError, localValidationError } from "@promo-review/errors";

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
  const origin = httpOrigin(baseUrl);
  if (origin === undefined) {
    throw localValidationError(
      [{ field: "baseUrl", message: "is not an absolute http(s) URL (for example https://api.example.com)" }],
      "The client configuration is invalid",
    );
  }
  const allowed = new Set([origin]);
  trustedOrigins.forEach((entry, index) => {
    const trusted = httpOrigin(entry);
    if (trusted === undefined) {
      throw localValidationError(
        [{ field: `trustedOrigins.${index}`, message: "is not an absolute http(s) URL" }],
        "The client configuration is invalid",
      );
    }
    allowed.add(trusted);
  });
  return {
    origin,
    check(url, { method, redirect = false }) {
      const target = originOf(url);
      if (target !== undefined && allowed.has(target)) return;
      const named = target ?? "an unparsable URL";
      throw new ForeignOriginError({
        origin: named,
        expectedOrigin: origin,
        message: `${redirect ? "The service redirected" : "The service returned a URL for"} ${method} to ${named}, not ${origin}; nothing was sent there, since credentials go only to the service's origin (list it in trustedOrigins if your deployment really serves it)`,
      });
    },
  };
}

function httpOrigin(url: string): string | undefined {
  const origin = originOf(url);
  return origin?.startsWith("http://") || origin?.startsWith("https://") ? origin : undefined;
}
