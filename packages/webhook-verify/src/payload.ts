import { issuesFromValibot } from "@promo-review/errors";
import * as v from "valibot";
import { refuse } from "./refuse.js";

/** One issue found by an evaluation. Unknown fields are kept. */
export interface EvaluationIssue {
  [field: string]: unknown;
  issueId: string;
  /** Present on comment-backed issues; replayed deliveries may omit it. Reply with it as `parentCommentId`. */
  commentId?: string;
  /** For example `high`, `medium`, `low` (the spec does not list the values). */
  severity: string;
  category: string;
  message: string;
  excerpt?: string;
}

/** The evaluation's status: `completed`, `skipped` (not a financial promotion), or another value the service adds. */
export type EvaluationStatus = "completed" | "skipped" | "failed" | (string & {});

/** The `evaluation-completed` event: the evaluation's status, its issues, and the metadata given at creation. */
export interface EvaluationCompletedEvent {
  [field: string]: unknown;
  type: "evaluation-completed";
  /** When the event happened (ISO 8601), as sent. */
  timestamp: string;
  data: {
    [field: string]: unknown;
    evaluationId: string;
    promotionId: string;
    versionId: string;
    status: EvaluationStatus;
    /** Empty when none were found (and for a skipped evaluation). */
    issues: EvaluationIssue[];
    /** The metadata given when the promotion was created (empty when none). */
    metadata: Record<string, string>;
  };
}

/** An event of a kind this version does not model (the spec shows only `evaluation-completed`); kept as sent. */
export interface UnknownWebhookEvent {
  [field: string]: unknown;
  type: string;
  timestamp?: string;
  data?: unknown;
}

/** Any verified event. Narrow with {@link isEvaluationCompleted}. */
export type WebhookEvent = EvaluationCompletedEvent | UnknownWebhookEvent;

/** Whether `event` is an `evaluation-completed` event (a type guard). */
export function isEvaluationCompleted(event: WebhookEvent): event is EvaluationCompletedEvent {
  return event.type === "evaluation-completed";
}

const IssueSchema = v.looseObject({
  issueId: v.string(),
  commentId: v.optional(v.string()),
  severity: v.string(),
  category: v.string(),
  message: v.string(),
  excerpt: v.optional(v.string()),
});

const EvaluationCompletedSchema = v.looseObject({
  type: v.literal("evaluation-completed"),
  timestamp: v.string(),
  data: v.looseObject({
    evaluationId: v.string(),
    promotionId: v.string(),
    versionId: v.string(),
    status: v.string(),
    issues: v.optional(v.array(IssueSchema), () => []),
    metadata: v.optional(v.record(v.string(), v.string()), () => ({})),
  }),
});

const EnvelopeSchema = v.looseObject({ type: v.string() });

/**
 * Parses a verified body into a typed event. `evaluation-completed` is checked field by field (unknown
 * fields kept, `commentId` optional); other kinds are kept as sent. Throws `invalid_payload` when the
 * body is not JSON or not an event: the sender is authentic, so the message says what the shape lacked.
 */
export function parsePayload(text: string, webhookId: string): WebhookEvent {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refuse("invalid_payload", "The webhook is authentic but its body is not JSON", { webhookId });
  }
  const envelope = v.safeParse(EnvelopeSchema, json);
  if (!envelope.success) {
    throw refuse(
      "invalid_payload",
      "The webhook is authentic but its body is not an event with a string `type`",
      {
        webhookId,
      },
    );
  }
  if (envelope.output.type !== "evaluation-completed") return envelope.output as UnknownWebhookEvent;
  const event = v.safeParse(EvaluationCompletedSchema, json);
  if (!event.success) {
    const problems = issuesFromValibot(event.issues)
      .map((issue) => `${issue.field}: ${issue.message}`)
      .join("; ");
    throw refuse(
      "invalid_payload",
      `The evaluation-completed event does not have the expected shape (${problems})`,
      {
        webhookId,
      },
    );
  }
  return event.output as EvaluationCompletedEvent;
}
