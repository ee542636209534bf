import type { WebhookInput } from "./body.js";
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

// Node's (req, res) described by shape only: this file imports nothing from Node, so the main entry
// stays loadable on every runtime; it works with node:http, Express, Connect, Fastify's raw req/res.

/** The part of a Node `IncomingMessage` the adapter uses. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  headers: Record<string, string | string[] | undefined>;
  method?: string | undefined;
  /** Set by a body parser that ran first: raw bytes or text are used; a parsed object is refused. */
  body?: unknown;
  /** Set by frameworks that keep the raw body beside a parsed one. */
  rawBody?: unknown;
  /** True once the stream was read to its end (by a body parser, when this adapter did not read it). */
  readableEnded?: boolean;
  /** True once anything read from the stream (Node 16.7+): another reader got there first. */
  readableDidRead?: boolean;
  /** True while something consumes the stream through `data` events. */
  readableFlowing?: boolean | null;
}

/** The part of a Node `ServerResponse` the adapter uses. */
export interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

const NODE_FIX =
  "verify before parsing: mount the handler before any body parser, or keep the raw body (`express.raw({ type: 'application/json' })`, `req.rawBody`)";

/** Whether another reader has read, is reading, or finished reading the stream. */
function startedReading(req: NodeRequestLike): boolean {
  return req.readableEnded === true || req.readableDidRead === true || req.readableFlowing === true;
}

function isRaw(value: unknown): value is Uint8Array | string {
  return typeof value === "string" || value instanceof Uint8Array;
}

function send(res: NodeResponseLike, answer: Answer): void {
  res.statusCode = answer.status;
  res.setHeader("content-type", "application/json");
  res.end(answer.body);
}

/**
 * A Node `(req, res)` handler. Uses `req.rawBody`, or `req.body` when a raw/text parser produced bytes
 * or text, or else reads the stream; when a parser consumed the stream and left an object (express.json
 * ran first), that is reported through `onError` as `parsed_body` and answered 500, because only this server
 * can fix it.
 */
export function nodeHandler(
  receiver: Receiver<WebhookInput>,
  fn: WebhookHandlerFn | undefined,
  options: HandlerOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (req, res) => {
    if (req.method !== undefined && req.method !== "POST") return send(res, ANSWERS.methodNotAllowed);
    if (declaredTooLarge(req.headers["content-length"] as string | undefined, maxBytes)) {
      return send(res, tooLarge(options, maxBytes));
    }
    let body: unknown;
    if (isRaw(req.rawBody)) body = req.rawBody;
    else if (isRaw(req.body)) body = req.body;
    // A parser that did not match the content type leaves `{}` in req.body and the stream unread.
    // Iterated by hand: leaving a `for await` early would destroy the socket before the 413 is sent.
    else if (!startedReading(req)) {
      const chunks = req[Symbol.asyncIterator]();
      body = await readLimited(() => chunks.next(), maxBytes);
      if (body === undefined) return send(res, tooLarge(options, maxBytes));
    }
    // Read (or being read) by something that kept nothing: the signed bytes are gone.
    else if (req.body === undefined) return send(res, misconfigured(options, bodyConsumed(NODE_FIX)));
    else body = req.body;
    send(res, await receive(receiver, { headers: req.headers, body: body as Uint8Array }, fn, options));
  };
}
