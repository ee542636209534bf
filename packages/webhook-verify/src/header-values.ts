import { refuse } from "./refuse.js";

// The three Standard Webhooks headers once read, whichever shape they came in: checked for form here
// (not yet for authenticity). A Fetch `Request` hands them over as `Headers` (`fetch-input.ts`);
// `verify()` and the Node handler accept every shape (`headers.ts`); both end in this check.

/** The three headers a verifier reads: `webhook-<kind>`, or `svix-<kind>` in a Svix-sent delivery. */
export const KINDS = ["id", "timestamp", "signature"] as const;

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

/**
 * Checks the values of `webhook-id`, `webhook-timestamp` and `webhook-signature` (in {@link KINDS}'
 * order, `undefined` when absent) for the Standard Webhooks form. `hint` ends a missing-header
 * message with what the caller's input suggests (a cheap string: made whether or not it is used). Throws a `WebhookVerificationError`, never anything else.
 */
export function checkDeliveryHeaders(values: readonly (string | undefined)[], hint = ""): DeliveryHeaders {
  const [id, timestamp, signature] = values;
  if (!id || !timestamp || !signature) {
    const missing = KINDS.filter((_, i) => !values[i]).map((kind) => `webhook-${kind}`);
    throw refuse(
      "missing_headers",
      `The delivery has no ${missing.join(", ")} header${missing.length > 1 ? "s" : ""}.${hint}`,
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
