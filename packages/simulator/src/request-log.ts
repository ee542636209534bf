/**
 * The request log the control surface exposes: what each request asked for and how it was answered,
 * with credentials redacted so logs can be printed in CI output.
 */
import type { IncomingMessage } from "node:http";

/** One logged request. */
export interface RequestLogEntry {
  /** Which server received it. */
  service: "main" | "files";
  method: string;
  path: string;
  /** Query parameters (capability tokens such as `sig` redacted). */
  query: Record<string, string>;
  /** Request headers, lower-cased, with Authorization and any secret redacted. */
  headers: Record<string, string>;
  /** Response status, or null when the connection was cut (an injected reset). */
  status: number | null;
  correlationId: string;
  /** ISO time the request arrived. */
  time: string;
  /** The injected fault that answered it, if any. */
  fault?: { faultId: string; kind: string };
}

const REDACTED = "[REDACTED]";
const SECRET_HEADERS = new Set(["authorization", "cookie", "proxy-authorization", "x-api-key"]);
const SECRET_QUERY = new Set(["sig", "token", "key"]);
/** Entries kept; older ones are dropped so a long-running simulator does not grow without bound. */
export const MAX_LOG_ENTRIES = 10_000;

/** Redacts credential headers, and any header value containing one of `secrets`. */
export function redactHeaders(
  headers: IncomingMessage["headers"],
  secrets: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    const value = Array.isArray(raw) ? raw.join(", ") : (raw ?? "");
    if (SECRET_HEADERS.has(name)) {
      out[name] = value.startsWith("Bearer ") ? `Bearer ${REDACTED}` : REDACTED;
    } else {
      out[name] = secrets.some((s) => s.length > 0 && value.includes(s)) ? REDACTED : value;
    }
  }
  return out;
}

/** Parses a raw query string, redacting capability tokens. */
export function redactQuery(rawQuery: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQuery))
    out[name] = SECRET_QUERY.has(name) ? REDACTED : value;
  return out;
}

/** A bounded in-memory request log. */
export class RequestLog {
  readonly #entries: RequestLogEntry[] = [];

  /** Appends an entry. */
  add(entry: RequestLogEntry): void {
    this.#entries.push(entry);
    if (this.#entries.length > MAX_LOG_ENTRIES) this.#entries.shift();
  }

  /** Every entry, oldest first (copies). */
  entries(): RequestLogEntry[] {
    return this.#entries.map((e) => structuredClone(e));
  }

  /** Empties the log. */
  clear(): void {
    this.#entries.length = 0;
  }
}
