import { kindOf } from "@promo-review/errors/internal";
import type { ReceivedDelivery } from "./delivery.js";
import { type HeadersInput, readDeliveryHeaders } from "./headers.js";
import { refuse } from "./refuse.js";

// A delivery as `verify()` and the Node handler accept it (`readInput`): a Fetch `Request`, read
// whole, or the headers and raw body a caller hands over, the body as signed
// (`signedBody`). The parsed event is `parsePayload`'s, later.

/** The raw body as received: bytes, an `ArrayBuffer` (or any view of one), or the text it decodes to. */
export type RawBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;

/** A delivery as a server framework hands it over: its headers and its raw body. */
export interface WebhookInput {
  headers: HeadersInput;
  /** The body exactly as received: bytes, an `ArrayBuffer`, or the text. Never a parsed object. */
  body: RawBody;
}

const RAW_BODY_HINT =
  "pass the raw body instead: `await request.text()` or `request.arrayBuffer()` with Fetch, `express.raw({ type: 'application/json' })` with Express, `req.rawBody` where a framework keeps it";

/**
 * Steps 1 and 2 of a delivery (see delivery.ts) for any input `verify()` and the Node handler accept:
 * a Fetch `Request` (read whole), or `{ headers, body }` with headers of
 * any shape and the body as text, bytes or an `ArrayBuffer`.
 */
export async function readInput(input: unknown): Promise<ReceivedDelivery> {
  if (typeof input !== "object" || input === null) {
    throw refuse("missing_headers", "Nothing to verify: pass { headers, body } or a Fetch Request");
  }
  let { headers, body } = input as { headers?: unknown; body?: unknown };
  const request = input as Request;
  if (typeof request.arrayBuffer === "function" && typeof request.method === "string") {
    if (request.bodyUsed) {
      throw refuse(
        "parsed_body",
        "The request body was read already (a Request can be read once): pass { headers, body } with the bytes you read",
      );
    }
    // Its headers are a `Headers`, which the reader of every shape reads through `get`.
    body = await request.arrayBuffer();
  }
  return { headers: readDeliveryHeaders(headers), body: signedBody(body) };
}

/**
 * The body as signed: a string (its UTF-8 bytes) or bytes, never copied. Anything else is refused with
 * `parsed_body`, because the usual cause is a JSON body parser that ran first, and re-serialised JSON
 * is not the bytes that were signed.
 */
export function signedBody(body: unknown): string | Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") {
    // `String(parsedObject)` or a template literal over one: the parsed object, stringified badly.
    if (body === "[object Object]") {
      throw refuse(
        "parsed_body",
        `The body is the text "[object Object]", a parsed object turned into a string; ${RAW_BODY_HINT}`,
      );
    }
    return body;
  }
  if (body instanceof ArrayBuffer || Object.prototype.toString.call(body) === "[object ArrayBuffer]") {
    return new Uint8Array(body as ArrayBuffer);
  }
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body === undefined || body === null) {
    throw refuse(
      "parsed_body",
      `The body is ${String(body)}: a body parser may have consumed the stream; ${RAW_BODY_HINT}`,
    );
  }
  throw refuse(
    "parsed_body",
    `The body is ${kindOf(body)}, not the raw bytes: it was parsed already, and re-serialised JSON is not what was signed; ${RAW_BODY_HINT}`,
  );
}
