import { WebhookVerificationError } from "@promo-review/errors";
import type { WebhookEvent } from "./payload.js";
import { refuse } from "./refuse.js";
import type { VerifiedDelivery, VerifierCore } from "./verify.js";

/** What a handler does with a verified event; a throw (or rejection) makes the sender retry. */
export type WebhookHandlerFn = (event: WebhookEvent, delivery: VerifiedDelivery) => unknown;

/** Options of the HTTP handlers. */
export interface HandlerOptions {
  /** Bodies larger than this are refused with 413 before verification (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Called with every failure that is this server's problem (the handler threw, a body parser ran
   * first, the replay store is down): the sender only sees a bare 5xx. Default: `console.error`.
   * Refused deliveries (bad signature, stale timestamp) are not reported here; they are the sender's
   * problem or an attack, and would flood a log.
   */
  onError?: (error: unknown, context: { webhookId?: string }) => void;
  /** Called with every refused delivery, for counting or debugging (the answer to the sender stays a bare 400). */
  onRefused?: (error: WebhookVerificationError) => void;
}

/** A status and a JSON body to answer with. */
export interface Answer {
  status: number;
  body: string;
}

const json = (status: number, value: unknown): Answer => ({ status, body: JSON.stringify(value) });

/** Answers that never say which check failed: a prober learns nothing from them. */
export const ANSWERS = {
  ok: json(200, { received: true }),
  duplicate: json(200, { received: true, duplicate: true }),
  inFlight: json(409, { error: "delivery in progress" }),
  refused: json(400, { error: "invalid webhook" }),
  tooLarge: json(413, { error: "payload too large" }),
  methodNotAllowed: json(405, { error: "method not allowed" }),
  failed: json(500, { error: "webhook handler failed" }),
} as const;

// A body parser that ran first, or a bad secret, is a mistake of this server, not of the sender.
const CONFIGURATION_REASONS = new Set(["parsed_body", "secret_format"]);

/** A delivery as the Fetch handler read it: the request's `Headers` and its bytes. */
export interface FetchedDelivery {
  headers: Headers;
  body: Uint8Array;
}

/** What a handler needs from its verifier, whose core reads deliveries given as `I`. */
export interface Receiver<I = FetchedDelivery> {
  core: VerifierCore<I>;
  dispatch(event: WebhookEvent): Promise<void>;
  /** Ids whose handler is running in this process. */
  inFlight: Set<string>;
}

/**
 * Verifies a delivery, runs `fn` and the listeners, and chooses the answer: 200 only after they
 * succeed; 400 for a refused delivery, without saying why; 500 when they threw, after releasing the
 * id so that the sender's retry is processed. A replay of an id already processed gets 200 (the
 * sender can stop), of one still running here 409 (it retries later and then gets the outcome).
 */
export async function receive<I>(
  receiver: Receiver<I>,
  input: I,
  fn: WebhookHandlerFn | undefined,
  options: HandlerOptions,
): Promise<Answer> {
  const report = options.onError ?? ((error: unknown) => console.error(error));
  let delivery: VerifiedDelivery;
  try {
    delivery = await receiver.core.verifyDelivery(input);
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      if (error.reason === "replayed") {
        return error.webhookId !== undefined && receiver.inFlight.has(error.webhookId)
          ? ANSWERS.inFlight
          : ANSWERS.duplicate;
      }
      if (CONFIGURATION_REASONS.has(error.reason)) return misconfigured(options, error);
      options.onRefused?.(error);
      return ANSWERS.refused;
    }
    report(error, {});
    return ANSWERS.failed;
  }
  receiver.inFlight.add(delivery.id);
  try {
    await fn?.(delivery.event, delivery);
    await receiver.dispatch(delivery.event);
    return ANSWERS.ok;
  } catch (error) {
    report(error, { webhookId: delivery.id });
    try {
      await receiver.core.replayStore?.release(delivery.id);
    } catch (releaseError) {
      // The sender's retry will then be refused as a replay until the window ends: say so.
      report(releaseError, { webhookId: delivery.id });
    }
    return ANSWERS.failed;
  } finally {
    receiver.inFlight.delete(delivery.id);
  }
}

/**
 * The 500 answer to a mistake of this server (a body parser ran first, a bad secret), after reporting
 * it through `onError`: the sender only sees a bare 5xx.
 */
export function misconfigured(options: HandlerOptions, error: WebhookVerificationError): Answer {
  const report = options.onError ?? ((failure: unknown) => console.error(failure));
  report(error, { webhookId: error.webhookId });
  return ANSWERS.failed;
}

/** The 413 answer, after telling `onRefused` (a body over the limit is refused before any check). */
export function tooLarge(options: HandlerOptions, maxBytes: number): Answer {
  options.onRefused?.(refuse("body_too_large", `The body exceeds maxBodyBytes (${maxBytes} bytes)`));
  return ANSWERS.tooLarge;
}
