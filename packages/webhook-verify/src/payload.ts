import { kindOf } from "@promo-review/errors/internal";
import { isRecord, readEvaluationCompleted } from "./payload-fields.js";

/**
 * One issue found by an evaluation. The spec states only that a comment-backed issue normally carries
 * `commentId` (replayed deliveries may omit it), so nothing is required of an issue. The other named
 * fields are the ones services commonly send; each is typed only when it is a string, and every
 * field (named or not) is kept as sent in the delivery's `payload`.
 */
export interface EvaluationIssue {
  [field: string]: unknown;
  /** Present on comment-backed issues; replayed deliveries may omit it. Reply with it as `parentCommentId`. */
  commentId?: string;
  issueId?: string;
  /** For example `high`, `medium`, `low` (the spec does not list the values). */
  severity?: string;
  category?: string;
  message?: string;
  excerpt?: string;
}

/** The evaluation's status: `completed`, `skipped` (not a financial promotion), or another value the service adds. */
export type EvaluationStatus = "completed" | "skipped" | "failed" | (string & {});

/**
 * What an `evaluation-completed` delivery says, read from its `data` object, or from the top level
 * when the service sends the fields flat. The spec states the status, the issues and the creation
 * metadata; the ids are typed when sent as strings.
 */
export interface EvaluationCompletedData {
  [field: string]: unknown;
  /** The evaluation's status; `undefined` only when the delivery lacked it (a warning says so). */
  status?: EvaluationStatus;
  /** Empty when none were found (and for a skipped evaluation, or when the list was unreadable). */
  issues: EvaluationIssue[];
  /** The metadata given when the promotion was created (empty when none). */
  metadata: Record<string, string>;
  evaluationId?: string;
  promotionId?: string;
  versionId?: string;
}

/** The `evaluation-completed` event: the evaluation's status, its issues, and the metadata given at creation. */
export interface EvaluationCompletedEvent {
  [field: string]: unknown;
  type: "evaluation-completed";
  /** When the event happened (ISO 8601), as sent. */
  timestamp?: string;
  data: EvaluationCompletedData;
}

/** An event of a kind this version does not model (the spec shows only `evaluation-completed`); kept as sent. */
export interface UnknownWebhookEvent {
  [field: string]: unknown;
  type: string;
  timestamp?: unknown;
  data?: unknown;
}

/**
 * An authentic delivery whose body is not an event object (not UTF-8, not JSON, JSON that is not an
 * object, or an object whose `type` is not a string). It is delivered all the same, with a warning:
 * the signature proves the service sent it, and refusing it would lose it.
 */
export interface UntypedWebhookEvent {
  type: null;
  /** Always absent; declared so that `event.data` and `event.timestamp` read on any `WebhookEvent`. */
  data?: undefined;
  timestamp?: undefined;
  /** The parsed JSON, else the body's text, else its bytes (not UTF-8). */
  payload: unknown;
}

/** Any verified event. Narrow with {@link isEvaluationCompleted}. */
export type WebhookEvent = EvaluationCompletedEvent | UnknownWebhookEvent | UntypedWebhookEvent;

/** A place where a verified body did not match what the spec states. Reported, never a refusal. */
export interface PayloadWarning {
  /** The `webhook-id` of the delivery. */
  webhookId: string;
  /** Where in the body, for example `data.issues.3.commentId`, or `body` for the whole of it. */
  field: string;
  /** What was found instead of what was expected. */
  message: string;
}

/** A parsed body: the event, the body as sent (parsed JSON, else text or bytes) and what did not match. */
export interface ParsedPayload {
  event: WebhookEvent;
  payload: unknown;
  warnings: PayloadWarning[];
}

/** Whether `event` is an `evaluation-completed` event (a type guard). */
export function isEvaluationCompleted(event: WebhookEvent): event is EvaluationCompletedEvent {
  return event.type === "evaluation-completed";
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function untyped(payload: unknown, webhookId: string, message: string, field = "body"): ParsedPayload {
  return { event: { type: null, payload }, payload, warnings: [{ webhookId, field, message }] };
}

/**
 * Parses an authentic body into an event and never throws: the signature proves the service sent
 * it, so every shape problem is a warning and the delivery goes on. `evaluation-completed` (also an
 * object with no `type`: the only kind the spec names) is typed where it matches the spec; other
 * kinds are kept as sent; anything else is an {@link UntypedWebhookEvent}.
 */
export function parsePayload(body: string | Uint8Array, webhookId: string): ParsedPayload {
  let text: string;
  try {
    text = typeof body === "string" ? body : decoder.decode(body);
  } catch {
    return untyped(body, webhookId, "The body is not UTF-8 text; delivered as bytes");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return untyped(text, webhookId, "The body is not JSON; delivered as text");
  }
  if (!isRecord(json)) {
    return untyped(
      json,
      webhookId,
      `The body is JSON ${kindOf(json)}, not an event object; delivered as parsed`,
    );
  }
  const type = json["type"];
  if (type === undefined || type === "evaluation-completed") {
    const warnings: PayloadWarning[] = [];
    const event = readEvaluationCompleted(json, (field, message) =>
      warnings.push({ webhookId, field, message }),
    );
    return { event, payload: json, warnings };
  }
  if (typeof type !== "string") {
    return untyped(
      json,
      webhookId,
      `The event's type is ${kindOf(type)}, not a string; delivered as parsed`,
      "type",
    );
  }
  return { event: json as UnknownWebhookEvent, payload: json, warnings: [] };
}
