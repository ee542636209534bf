import { WebhookVerificationError } from "@promo-review/errors";
import { DEFAULT_MAX_BODY_BYTES, declaredTooLarge } from "./chunks.js";
import { requestBytesWithin } from "./fetch-input.js";
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
      body = await requestBytesWithin(request, maxBytes);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return respond(misconfigured(options, error));
      throw error;
    }
    if (!body) return respond(tooLarge(options, maxBytes));
    return respond(await receive(receiver, { headers: request.headers, body }, fn, options));
  };
}
