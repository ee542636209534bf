import type { WebhookVerificationError } from "@promo-review/errors";
import { refuse } from "./refuse.js";

/**
 * The refusal of a request whose body something else read (or began to read) before the handler: a
 * framework's `c.req.json()`, a body parser that kept nothing. `parsed_body`, so a handler reports it
 * through `onError` and answers 500: only this server can fix it.
 */
export function bodyConsumed(adapter: "fetch" | "node"): WebhookVerificationError {
  const fix =
    adapter === "fetch"
      ? "verify before parsing: hand the handler the untouched Request (Hono: `c.req.raw`, before any `c.req.json()`), or read the raw body yourself (`await request.text()`) and call `verify({ headers, body })`"
      : "verify before parsing: mount the handler before any body parser, or keep the raw body (`express.raw({ type: 'application/json' })`, `req.rawBody`)";
  return refuse(
    "parsed_body",
    `The request body was already read (or is being read) by something before the webhook handler, so the signed bytes are gone; ${fix}`,
  );
}
