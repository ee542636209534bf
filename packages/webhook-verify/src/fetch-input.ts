import { readLimited } from "./chunks.js";
import { bodyConsumed } from "./consumed.js";
import type { ReceivedDelivery } from "./delivery.js";
import { checkDeliveryHeaders, KINDS } from "./header-values.js";
import type { FetchedDelivery } from "./receive.js";

// Steps 1 and 2 of a delivery (see delivery.ts) for a Fetch `Request`, all a Fetch handler ever meets:
// its `Headers` and its bytes, read once. No record, array or parsed-body reading: that is `readInput`'s,
// for `verify({ headers, body })` and the Node handler, so a Fetch-only bundle does not carry it.

const FETCH_FIX =
  "verify before parsing: hand the handler the untouched Request (Hono: `c.req.raw`, before any `c.req.json()`), or read the raw body yourself (`await request.text()`) and call `verify({ headers, body })`";

/** The delivery's three headers from a Fetch `Headers` (`webhook-*`, else `svix-*`), checked for form. */
export function fetchDeliveryHeaders(headers: Headers, body: Uint8Array): ReceivedDelivery {
  return {
    headers: checkDeliveryHeaders(
      KINDS.map((kind) => headers.get(`webhook-${kind}`) ?? headers.get(`svix-${kind}`) ?? undefined),
    ),
    body,
  };
}

/**
 * A Fetch request's raw bytes, read once, up to `maxBytes`; `undefined` when it is larger (the rest is
 * not read). A body already used or locked (a framework read it first) is refused as `parsed_body`.
 */
export async function requestBytesWithin(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (request.bodyUsed || request.body?.locked) throw bodyConsumed(FETCH_FIX);
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const body = await readLimited(() => reader.read(), maxBytes);
  if (!body) await reader.cancel();
  return body;
}

/**
 * Steps 1 and 2 for the Fetch entry: a whole `Request` (its `verify`), or the headers and bytes its
 * handler read within the cap.
 */
export async function readFetched(input: Request | FetchedDelivery): Promise<ReceivedDelivery> {
  const body = input instanceof Request ? await requestBytesWithin(input, Infinity) : input.body;
  return fetchDeliveryHeaders(input.headers, body as Uint8Array);
}
