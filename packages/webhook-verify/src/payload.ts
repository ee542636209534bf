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

/**
 * The metadata: an object whose every value is a string. Checked key by key here because valibot's
 * `record` (and `looseObject`) skip keys such as `__proto__` and `constructor`, which a user's metadata
 * may well use: such a key would be neither checked nor kept.
 */
const MetadataSchema = v.custom<Record<string, string>>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === "string"),
  "Invalid type: Expected an object whose values are strings",
);

const EvaluationCompletedSchema = v.looseObject({
  type: v.literal("evaluation-completed"),
  timestamp: v.string(),
  data: v.looseObject({
    evaluationId: v.string(),
    promotionId: v.string(),
    versionId: v.string(),
    status: v.string(),
    issues: v.optional(v.array(IssueSchema), () => []),
    metadata: v.optional(MetadataSchema),
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
  // What is returned is the parsed JSON itself, once valibot has checked it: valibot's outputs leave
  // out keys named like Object.prototype members (`__proto__`, `constructor`), and nothing the sender
  // said may be lost. JSON.parse made every such key an own property; spreading keeps it one.
  if (envelope.output.type !== "evaluation-completed") return json as UnknownWebhookEvent;
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
  const sent = json as { data: { issues?: unknown; metadata?: unknown } };
  return {
    ...sent,
    data: { ...sent.data, issues: sent.data.issues ?? [], metadata: sent.data.metadata ?? {} },
  } as EvaluationCompletedEvent;
}
