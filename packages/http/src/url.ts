/**
 * Resolves a service path against a base URL. An absolute URL is used as it is. A path is appended to
 * the base as text, so that a base with a path prefix (`https://host/api`) keeps it and a query string
 * (a `statusUrl`'s signature, say) reaches the wire byte for byte, never re-encoded.
 */
export function resolveUrl(baseUrl: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  const base = baseUrl.replace(/\/+$/, "");
  return `${base}${path.startsWith("/") ? "" : "/"}${path}`;
}

/** A fresh correlation id (a UUID), sent as `X-Correlation-ID` so support can follow one operation. */
export function newCorrelationId(): string {
  return crypto.randomUUID();
}
