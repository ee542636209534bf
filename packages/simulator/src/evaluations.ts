/**
 * Evaluations: the trigger answers 202 `processing`; after the evaluation delay the simulator
 * "finishes" it and sends the evaluation-completed webhook. Issues are generated from the seed.
 * A version marked isFinancialPromotion false is not evaluated: status `skipped`, no issues.
 */
import { ApiError } from "./envelope.js";
import type { PromotionRecord, VersionRecord } from "./promotions.js";
import type { Random } from "./random.js";
import type { Scheduler } from "./scheduler.js";
import type { WebhookDispatcher } from "./webhooks.js";

/** One issue of an evaluation, as carried by the webhook. */
export interface EvaluationIssue {
  issueId: string;
  /** Present on comment-backed issues (always, except in replays). */
  commentId?: string;
  severity: "high" | "medium" | "low";
  category: string;
  message: string;
  excerpt?: string;
}

/** An evaluation the simulator has started. */
export interface EvaluationRecord {
  evaluationId: string;
  promotionId: string;
  versionId: string;
  /** `processing`, then `completed` or `skipped` (a variant profile may use other final values). */
  status: "processing" | "completed" | "skipped" | (string & {});
  issues: EvaluationIssue[];
}

const FINDINGS: [EvaluationIssue["severity"], string, string, string][] = [
  ["high", "risk_warning", "The risk warning is missing or not prominent", "Capital at risk"],
  [
    "medium",
    "fair_clear_not_misleading",
    "The benefit claim is not balanced by its risks",
    "Guaranteed returns",
  ],
  [
    "low",
    "past_performance",
    "Past performance needs a statement that it is not a reliable indicator",
    "up 12% last year",
  ],
  ["medium", "representative_example", "A representative APR example is required", "0% interest"],
];

/** How evaluations read the points the spec leaves open (the variant profile); defaults as documented. */
export interface EvaluationOptions {
  /** The final status of a financial (evaluated) and a non-financial (skipped) version. */
  finalStatus?: { evaluated: string; skipped: string };
  /** Another event kind sent around evaluation-completed: at the trigger, or after the result. */
  extraEvent?: "evaluation-started" | "evaluation-summary";
}

/** Starts evaluations and sends their results. */
export class Evaluations {
  readonly #options: EvaluationOptions;
  readonly #random: Random;
  readonly #scheduler: Scheduler;
  readonly #webhooks: WebhookDispatcher;
  readonly #delayMs: () => number;
  readonly #indexDelayMs: () => number;
  readonly #evaluations = new Map<string, EvaluationRecord>();
  /** Comment id -> the time from which it can be replied to (indexing is asynchronous). */
  readonly #comments = new Map<string, number>();

  constructor(
    random: Random,
    scheduler: Scheduler,
    webhooks: WebhookDispatcher,
    delayMs: () => number,
    indexDelayMs: () => number,
    options: EvaluationOptions = {},
  ) {
    this.#options = options;
    this.#random = random;
    this.#scheduler = scheduler;
    this.#webhooks = webhooks;
    this.#delayMs = delayMs;
    this.#indexDelayMs = indexDelayMs;
  }

  /** Starts an evaluation of `version`; the webhook follows after the evaluation delay. */
  start(promotion: PromotionRecord, version: VersionRecord): { evaluationId: string; status: "processing" } {
    const record: EvaluationRecord = {
      evaluationId: this.#random.uuid(),
      promotionId: promotion.promotionId,
      versionId: version.versionId,
      status: "processing",
      issues: [],
    };
    this.#evaluations.set(record.evaluationId, record);
    // Metadata is copied now: it is what the promotion carried when the evaluation was asked for.
    const metadata = { ...promotion.metadata };
    this.#scheduler.after(this.#delayMs(), () =>
      this.#finish(record, version.isFinancialPromotion, metadata),
    );
    if (this.#options.extraEvent === "evaluation-started") {
      this.#webhooks.dispatch({
        type: "evaluation-started",
        timestamp: new Date().toISOString(),
        data: {
          evaluationId: record.evaluationId,
          promotionId: record.promotionId,
          versionId: record.versionId,
        },
      });
    }
    return { evaluationId: record.evaluationId, status: "processing" };
  }

  #finish(record: EvaluationRecord, financial: boolean, metadata: Record<string, string>): void {
    const final = this.#options.finalStatus ?? { evaluated: "completed", skipped: "skipped" };
    record.status = financial ? final.evaluated : final.skipped;
    record.issues = financial ? this.#findings() : [];
    const indexedAt = Date.now() + this.#indexDelayMs();
    for (const issue of record.issues) if (issue.commentId) this.#comments.set(issue.commentId, indexedAt);
    this.#webhooks.dispatch({
      type: "evaluation-completed",
      timestamp: new Date().toISOString(),
      data: {
        evaluationId: record.evaluationId,
        promotionId: record.promotionId,
        versionId: record.versionId,
        status: record.status,
        issues: record.issues,
        metadata,
      },
    });
    if (this.#options.extraEvent === "evaluation-summary") {
      this.#webhooks.dispatch({
        type: "evaluation-summary",
        timestamp: new Date().toISOString(),
        data: { evaluationId: record.evaluationId, status: record.status, issueCount: record.issues.length },
      });
    }
  }

  #findings(): EvaluationIssue[] {
    const count = 1 + this.#random.int(FINDINGS.length);
    return FINDINGS.slice(0, count).map(([severity, category, message, excerpt]) => ({
      issueId: this.#random.uuid(),
      commentId: this.#random.uuid(),
      severity,
      category,
      message,
      excerpt,
    }));
  }

  /** One evaluation of a version (a copy), as the evaluation read answers it; 404 when unknown. */
  get(promotionId: string, versionId: string, evaluationId: string): EvaluationRecord {
    const record = this.#evaluations.get(evaluationId);
    if (!record || record.promotionId !== promotionId || record.versionId !== versionId) {
      throw new ApiError("NOT_FOUND", `Evaluation ${evaluationId} not found for this version`);
    }
    return structuredClone(record);
  }

  /** Every evaluation (copies). */
  list(): EvaluationRecord[] {
    return [...this.#evaluations.values()].map((e) => structuredClone(e));
  }

  /**
   * Posts a reply to the comment behind an issue. The parent must be a comment the simulator made and
   * indexed; until indexing finishes (and for any unknown id) the answer is `PARENT_NOT_FOUND`.
   */
  reply(body: Record<string, unknown>): { commentId: string; parentCommentId: string } {
    const parent = body["parentCommentId"];
    if (typeof parent !== "string" || parent === "") {
      throw new ApiError("VALIDATION_ERROR", "parentCommentId is required", [
        { type: "field_error", field: "parentCommentId", message: "is required (the issue's commentId)" },
      ]);
    }
    const indexedAt = this.#comments.get(parent);
    if (indexedAt === undefined || Date.now() < indexedAt) {
      throw new ApiError(
        "PARENT_NOT_FOUND",
        `Parent comment ${parent} not found; comment indexing is asynchronous, retry shortly`,
      );
    }
    return { commentId: this.#random.uuid(), parentCommentId: parent };
  }

  /** Forgets every evaluation. */
  reset(): void {
    this.#evaluations.clear();
    this.#comments.clear();
  }
}
