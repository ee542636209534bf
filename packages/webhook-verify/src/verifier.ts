import type { CryptoBackend } from "./crypto-backend.js";
import { fetchHandler } from "./handler.js";
import type { NodeRequestLike, NodeResponseLike } from "./node-handler.js";
import type { EvaluationCompletedEvent, UnknownWebhookEvent, WebhookEvent } from "./payload.js";
import type { HandlerOptions, Receiver, WebhookHandlerFn } from "./receive.js";
import {
  createVerifierCore,
  type ReadDelivery,
  type VerifiedDelivery,
  type VerifiedSignature,
  type WebhookInput,
  type WebhookVerifierOptions,
} from "./verify.js";

/** An event kind: `evaluation-completed`, or one a later service version adds. */
export type EventKind = "evaluation-completed" | (string & {});

/** The event type a kind's listeners receive. */
export type EventOf<K extends string> = K extends "evaluation-completed"
  ? EvaluationCompletedEvent
  : UnknownWebhookEvent;

/** A listener of one kind; a returned promise is awaited, and a rejection fails the delivery (the sender retries). */
export type WebhookListener<K extends string> = (event: EventOf<K>) => unknown;

/**
 * What every verifier does, for deliveries given as `I`: a Fetch `Request` for the Fetch entry's
 * ({@link FetchWebhookVerifier}), also `{ headers, body }` of any shape for the main entry's
 * ({@link WebhookVerifier}).
 */
export interface VerifierMethods<I> {
  /**
   * Verifies a delivery (signature, timestamp, payload), claims its `webhook-id` against replays, and
   * returns the typed event. Throws `WebhookVerificationError` whose `reason` names the failed check.
   * If processing the event then fails, call `release` with the id (see `verifyDelivery`) so that the
   * sender's retry is accepted.
   */
  verify(input: I): Promise<WebhookEvent>;
  /** As `verify`, also returning the `webhook-id` and timestamp. */
  verifyDelivery(input: I): Promise<VerifiedDelivery>;
  /** Checks the signature and timestamp only: no parsing, no replay claim (for bodies you parse yourself). */
  verifySignature(input: I): Promise<VerifiedSignature>;
  /** Releases a claimed `webhook-id`, so that a retry of a delivery you failed to process is accepted. */
  release(id: string): Promise<void>;
  /** Adds a listener for one kind of event. */
  on<K extends EventKind>(kind: K, listener: WebhookListener<K>): this;
  /** Removes a listener (or every listener of the kind). */
  off<K extends EventKind>(kind: K, listener?: WebhookListener<K>): this;
  /** Runs the listeners of the event's kind one after another, awaiting each; the first failure rejects. */
  dispatch(event: WebhookEvent): Promise<void>;
  /**
   * A Fetch handler `(request) => Promise<Response>` (Workers, Deno, Bun, web frameworks) that
   * verifies, runs `fn` and the listeners, and answers: 200 after they succeed; 400 for a refused
   * delivery, never saying which check failed; 500 when they threw (the id is released, so the retry
   * is processed); 200 for a replay of a processed id, 409 while it is still running; 405, 413.
   */
  handler(fn?: WebhookHandlerFn, options?: HandlerOptions): (request: Request) => Promise<Response>;
}

/**
 * The Fetch entry's verifier (`@promo-review/webhook-verify/fetch`): deliveries come as a Fetch
 * `Request`, the only shape a Fetch handler meets, so its bundle carries no reader of other shapes
 * and no Node handler. A {@link WebhookVerifier} fits wherever one is expected.
 */
export interface FetchWebhookVerifier extends VerifierMethods<Request> {}

/** Verifies deliveries of one endpoint and dispatches them to listeners. Make one per endpoint and reuse it. */
export interface WebhookVerifier extends VerifierMethods<WebhookInput | Request> {
  /** The Fetch handler's answers for Node's `(req, res)` (node:http, Express, Connect), reading the raw body itself. */
  nodeHandler(
    fn?: WebhookHandlerFn,
    options?: HandlerOptions,
  ): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void>;
}

type Listener = (event: WebhookEvent) => unknown;

/**
 * Builds a verifier on one crypto backend whose core reads deliveries with `read` (steps 1 and 2, see
 * delivery.ts): the Fetch entry's reads a `Request` or what its handler read, the main entries' every
 * shape. `more` adds methods made from the receiver the handlers share (the main entries' Node handler).
 */
export function createVerifierMethods<I, More extends object = object>(
  backend: CryptoBackend,
  options: WebhookVerifierOptions,
  read: ReadDelivery<I>,
  more?: (receiver: Receiver<I>) => More,
): VerifierMethods<I> & More {
  const core = createVerifierCore(backend, options, read);
  // Listeners by kind, in the order added; a listener added twice runs twice, and `off` removes every
  // copy (as an emitter does). A plain map: the listeners are awaited one by one, which an emitter's
  // synchronous `emit` cannot do, so an emitter library would only add weight to the bundle.
  const listeners = new Map<string, Listener[]>();

  async function dispatch(event: WebhookEvent): Promise<void> {
    // An untyped body has no kind to listen to: it reaches the handler's `fn` and `verify` callers.
    if (event.type === null) return;
    // A copy: a listener that adds or removes listeners does not change this dispatch.
    for (const listener of [...(listeners.get(event.type) ?? [])]) await listener(event);
  }

  const receiver: Receiver<I> = { core, dispatch, inFlight: new Set() };
  const verifier: VerifierMethods<I> = {
    verify: async (input) => (await core.verifyDelivery(input)).event,
    verifyDelivery: core.verifyDelivery,
    verifySignature: core.verifySignature,
    release: async (id) => {
      await core.replayStore?.release(id);
    },
    on(kind, listener) {
      listeners.set(kind, [...(listeners.get(kind) ?? []), listener as Listener]);
      return verifier;
    },
    off(kind, listener) {
      const kept = listener ? (listeners.get(kind) ?? []).filter((l) => l !== listener) : [];
      if (kept.length > 0) listeners.set(kind, kept);
      else listeners.delete(kind);
      return verifier;
    },
    dispatch,
    // The handler hands the core what it read, the request's Headers and bytes: an `I` of every entry.
    handler: (fn, handlerOptions) =>
      fetchHandler(receiver as Receiver<unknown> as Receiver, fn, handlerOptions),
  };
  return Object.assign(verifier, more?.(receiver));
}
