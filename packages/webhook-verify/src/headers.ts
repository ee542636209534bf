import { kindOf } from "@promo-review/errors/internal";
import { refuse } from "./refuse.js";

/** Headers as any runtime or framework hands them over: a Fetch `Headers`, or a plain record (Node's `IncomingHttpHeaders`). */
export type HeadersInput =
  | Headers
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

/**
 * The three Standard Webhooks headers of a delivery. A type alias rather than an interface, so that
 * it can be passed straight to `fetch` or `new Request` as a `Record<string, string>`.
 */
export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** The three headers a verifier reads: `webhook-<kind>`, or `svix-<kind>` in a Svix-sent delivery. */
const KINDS = ["id", "timestamp", "signature"] as const;

/** One signature from the header: `v1,<base64>` splits into version `v1` and the value. */
export interface SignatureEntry {
  version: string;
  value: string;
}

/** The delivery's headers, read and checked for form (not yet for authenticity). */
export interface DeliveryHeaders {
  id: string;
  timestamp: string;
  /** The timestamp as unix seconds. */
  seconds: number;
  signatures: SignatureEntry[];
}

// A header line may carry many signatures during a rotation; beyond this many, a request is noise.
const MAX_SIGNATURES = 32;

type Lookup = (name: string) => unknown;

function lookupOf(headers: unknown): Lookup | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === "function") return (name) => get.call(headers, name);
  const record = headers as Record<string, unknown>;
  return (name) => {
    // Node hands headers over in lower case already: the direct read is the common, fast case.
    const direct = record[name];
    if (direct !== undefined) return direct;
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) return record[key];
    }
    return undefined;
  };
}

/** One header's value, or `undefined`; repeated lines are joined (signatures) or must agree (id, timestamp). */
function read(lookup: Lookup, kind: (typeof KINDS)[number]): string | undefined {
  for (const name of [`webhook-${kind}`, `svix-${kind}`]) {
    let value: unknown;
    try {
      value = lookup(name);
    } catch {
      value = undefined;
    }
    if (value === undefined || value === null) continue;
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
      if (value.length === 0) continue;
      // Joined as `Headers` joins repeated lines; `parseSignatures` reads entries on both sides of ", ".
      if (kind === "signature") return value.join(", ");
      if (value.every((item) => item === value[0])) return value[0] as string;
      throw refuse("malformed_headers", `The ${name} header was sent more than once with different values`);
    }
    throw refuse("malformed_headers", `The ${name} header is ${kindOf(value)}, not a string`);
  }
  return undefined;
}

/** What to add to a missing-header message; `headers` is an object (its lookup was made). */
function missingHint(headers: object): string {
  return typeof (headers as { get?: unknown }).get !== "function" && Object.keys(headers).length === 0
    ? " The headers object is empty: a Fetch Headers copied with { ...headers } loses every entry; pass the Headers itself."
    : " Pass the request's headers as received (a Headers object or Node's req.headers).";
}

/**
 * Reads `webhook-id`, `webhook-timestamp` and `webhook-signature` (or their `svix-*` equivalents)
 * from headers of any shape, case-insensitively. Throws a `WebhookVerificationError` (never anything
 * else) when one is absent or not in the Standard Webhooks form.
 */
export function readDeliveryHeaders(headers: unknown): DeliveryHeaders {
  const lookup = lookupOf(headers);
  if (!lookup) {
    throw refuse("missing_headers", "No headers were given: pass the request's headers as received");
  }
  const values = KINDS.map((kind) => read(lookup, kind));
  const [id, timestamp, signature] = values;
  if (!id || !timestamp || !signature) {
    const missing = KINDS.filter((_, i) => !values[i]).map((kind) => `webhook-${kind}`);
    throw refuse(
      "missing_headers",
      `The delivery has no ${missing.join(", ")} header${missing.length > 1 ? "s" : ""}.${missingHint(headers as object)}`,
      id ? { webhookId: id } : {},
    );
  }
  return {
    id,
    timestamp,
    seconds: parseTimestamp(timestamp, id),
    signatures: parseSignatures(signature, id),
  };
}

function parseTimestamp(timestamp: string, id: string): number {
  if (/^\d{13}$/.test(timestamp)) {
    throw refuse(
      "malformed_headers",
      "The webhook-timestamp header looks like milliseconds; Standard Webhooks sends unix seconds",
      { webhookId: id },
    );
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw refuse(
      "malformed_headers",
      "The webhook-timestamp header is not an integer number of unix seconds",
      {
        webhookId: id,
      },
    );
  }
  return Number(timestamp);
}

/**
 * Splits the header into `<version>,<value>` entries. Entries are separated by spaces; a header sent
 * twice arrives joined with `", "` (Node's `IncomingMessage`, Fetch's `Headers.append`), so a comma
 * may end an entry. Neither a version nor a base64 value holds a comma or a space, so each
 * space-separated part is read as comma-separated `version, value` pairs from its start (also two
 * entries joined by a bare comma); a pair with an empty side, or a lone last token, is skipped.
 */
function parseSignatures(header: string, id: string): SignatureEntry[] {
  const entries: SignatureEntry[] = [];
  for (const part of header.split(/\s+/)) {
    const tokens = part.split(",");
    for (let i = 0; i + 1 < tokens.length && entries.length < MAX_SIGNATURES; i += 2) {
      const version = tokens[i] as string;
      const value = tokens[i + 1] as string;
      if (version !== "" && value !== "") entries.push({ version, value });
    }
  }
  if (entries.length === 0) {
    throw refuse(
      "malformed_headers",
      "The webhook-signature header holds no `<version>,<base64>` entry (expected for example `v1,K5oZ…=`)",
      { webhookId: id },
    );
  }
  return entries;
}
