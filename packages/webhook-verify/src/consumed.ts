import type { WebhookVerificationError } from "@promo-review/errors";
import { refuse } from "./refuse.js";

/**
 * The refusal of a request whose body something else read (or began to read) before the handler: a
 * framework's `c.req.json()`, a body parser that kept nothing. `parsed_body`, so a handler reports it
 * through `onError` and answers 500: only this server can fix it. `fix` is the adapter's own advice
 * (each adapter holds its text, so a bundle carries only its own).
 */
export function bodyConsumed(fix: string): WebhookVerificationError {
  return refuse(
    "parsed_body",
    `The request body was already read (or is being read) by something before the webhook handler, so the signed bytes are gone; ${fix}`,
  );
}
