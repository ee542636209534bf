import { kindOf } from "@promo-review/errors/internal";
import { readLimited } from "./chunks.js";
import { bodyConsumed } from "./consumed.js";
import type { HeadersInput } from "./headers.js";
import { refuse } from "./refuse.js";

// The body of a delivery is read in one of two ways, and each reader says which: a Fetch `Request`'s
// raw bytes (`requestBytes`, whole; `requestBytesWithin`, up to a cap, for the handlers), and the raw
// body a caller hands over, as signed (`signedBody`). The parsed event is `parsePayload`'s, later.

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
 * The headers and the unread body of `input`: a `{ headers, body }` object as given, or a Fetch
 * `Request` whose raw bytes are read now, whole (the handlers read within a cap before this).
 */
export async function requestBytes(input: unknown): Promise<{ headers?: unknown; body?: unknown }> {
  if (typeof input !== "object" || input === null) {
    throw refuse("missing_headers", "Nothing to verify: pass { headers, body } or a Fetch Request");
  }
  const request = input as Request;
  if (typeof request.arrayBuffer !== "function" || typeof request.method !== "string") return input;
  if (request.bodyUsed) {
    throw refuse(
      "parsed_body",
      "The request body was read already (a Request can be read once): pass { headers, body } with the bytes you read",
    );
  }
  return { headers: request.headers, body: await request.arrayBuffer() };
}

/**
 * A Fetch request's raw bytes, read once, up to `maxBytes`; `undefined` when it is larger (the rest is
 * not read). A body already used or locked (a framework read it first) is refused as `parsed_body`.
 */
export async function requestBytesWithin(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (request.bodyUsed || request.body?.locked) throw bodyConsumed("fetch");
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const body = await readLimited(() => reader.read(), maxBytes);
  if (!body) await reader.cancel();
  return body;
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
