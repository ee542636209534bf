import { WebhookVerificationError } from "@promo-review/errors";
import { DEFAULT_MAX_BODY_BYTES, declaredTooLarge, readLimited } from "./chunks.js";
import { bodyConsumed } from "./consumed.js";
import {
  ANSWERS,
  type Answer,
  type HandlerOptions,
  misconfigured,
  type Receiver,
  receive,
  tooLarge,
  type WebhookHandlerFn,
} from "./receive.js";

function respond(answer: Answer): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Reads a request's body once, up to `maxBytes`; `undefined` when it is larger (the rest is not read).
 * A body already used or locked (a framework read it first) is refused as `parsed_body`.
 */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (request.bodyUsed || request.body?.locked) throw bodyConsumed("fetch");
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const body = await readLimited(() => reader.read(), maxBytes);
  if (!body) await reader.cancel();
  return body;
}

/**
 * A Fetch handler, `(request) => Promise<Response>`, for Cloudflare Workers, Deno, Bun and web
 * frameworks (Hono, Next.js route handlers, SvelteKit). Reads the raw body once, verifies it, runs
 * `fn` and the listeners, and answers 200 only after they succeed (see `receive` for every answer).
 */
export function fetchHandler(
  receiver: Receiver,
  fn: WebhookHandlerFn | undefined,
  options: HandlerOptions = {},
): (request: Request) => Promise<Response> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (request) => {
    if (request.method !== "POST") return respond(ANSWERS.methodNotAllowed);
    if (declaredTooLarge(request.headers.get("content-length"), maxBytes))
      return respond(tooLarge(options, maxBytes));
    let body: Uint8Array | undefined;
    try {
      body = await readBody(request, maxBytes);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return respond(misconfigured(options, error));
      throw error;
    }
    if (!body) return respond(tooLarge(options, maxBytes));
    return respond(await receive(receiver, { headers: request.headers, body }, fn, options));
  };
}
