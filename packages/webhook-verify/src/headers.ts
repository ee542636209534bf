import { kindOf } from "@promo-review/errors/internal";
import { checkDeliveryHeaders, type DeliveryHeaders, KINDS } from "./header-values.js";
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
 * from headers of any shape, case-insensitively, and checks their form. Throws a
 * `WebhookVerificationError` (never anything else) when one is absent or not in the Standard Webhooks form.
 */
export function readDeliveryHeaders(headers: unknown): DeliveryHeaders {
  const lookup = lookupOf(headers);
  if (!lookup) {
    throw refuse("missing_headers", "No headers were given: pass the request's headers as received");
  }
  return checkDeliveryHeaders(
    KINDS.map((kind) => read(lookup, kind)),
    missingHint(headers as object),
  );
}
