import { kindOf } from "@promo-review/errors/internal";
import { refuse } from "./refuse.js";

/** The raw body as received: bytes, an `ArrayBuffer` (or any view of one), or the text it decodes to. */
export type RawBody = Uint8Array | ArrayBuffer | ArrayBufferView | string;

const RAW_BODY_HINT =
  "pass the raw body instead: `await request.text()` or `request.arrayBuffer()` with Fetch, `express.raw({ type: 'application/json' })` with Express, `req.rawBody` where a framework keeps it";

/**
 * Normalises the body to what the signature covers: a string (its UTF-8 bytes) or bytes, never
 * copied. Anything else is refused with `parsed_body`, because the usual cause is a JSON body parser
 * that ran first, and re-serialised JSON is not the bytes that were signed.
 */
export function rawBody(body: unknown): string | Uint8Array {
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
