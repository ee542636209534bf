/**
 * Promotions and their versions: creation (with every rule of promotion-rules.ts and the
 * upload-readiness check), the read view, new versions (from the API or "the web app"), submit as a
 * safe retry, and review decisions on any version.
 */

import { isEmail } from "./auth.js";
import { ApiError } from "./envelope.js";
import { isObject, Problems } from "./problems.js";
import {
  checkDeadline,
  type RuleOptions,
  type UploadRef,
  validateCreation,
  validateVersion,
} from "./promotion-rules.js";
import { isUuid, type Random } from "./random.js";
import type { ReferenceData } from "./reference.js";
import type { UploadStore } from "./uploads.js";

/** Decision values of the spec (version level). */
export const DECISIONS = [
  "approved",
  "rejected",
  "changes_requested",
  "conditionally_approved",
  "in_review",
  "pending",
  "none",
] as const;

/** A review decision value. */
export type Decision = (typeof DECISIONS)[number];

/** A promotion's review status: a decision value or `expired` (promotion level only). */
export type PromotionStatus = Decision | "expired";

const UNDER_REVIEW: readonly Decision[] = ["in_review", "pending", "none"];

/** One version of a promotion. */
export interface VersionRecord {
  versionId: string;
  version: number;
  source: "api" | "web-app";
  isFinancialPromotion: boolean;
  decision: Decision;
  rationale?: string;
  decidedByUserId?: string;
  decidedAt?: string;
  reviewerEmail?: string;
  deadline?: string;
  createdAt: string;
}

/** One promotion with its versions. */
export interface PromotionRecord {
  promotionId: string;
  publicId: string;
  promotionName: string;
  metadata: Record<string, string>;
  tags: string[];
  isFinancialPromotion: boolean;
  expired: boolean;
  versions: VersionRecord[];
}

/** A decision as the decision endpoint shows it (without correlationId). */
export interface DecisionView {
  decision: Decision;
  decidedByUserId?: string;
  decidedAt?: string;
  rationale?: string;
}

/** Input of the control operation that records a decision. */
export interface DecisionInput {
  decision: Decision;
  rationale?: string;
  decidedByUserId?: string;
}

/** Rejects a path parameter that is not a UUID (400, like any other malformed field). */
export function requireUuidParam(value: string, name: string): void {
  if (!isUuid(value)) {
    throw new ApiError("VALIDATION_ERROR", `${name} must be a UUID`, [
      { type: "field_error", field: name, message: "must be a UUID" },
    ]);
  }
}

/** How a store reads the points the spec leaves open (its variant profile); defaults as documented. */
export interface PromotionStoreOptions {
  /** Creation and version rules. */
  rules?: RuleOptions;
  /** The status a first submit moves a version to (default `pending`). */
  submittedStatus?: "pending" | "in_review";
  /** The submit body's reviewer and deadline field names (default `reviewerEmail`, `deadline`). */
  submitFields?: { reviewer: string; deadline: string };
  /** Whether submit refuses a malformed reviewer or deadline (default true). */
  validateSubmit?: boolean;
}

/** All promotions of one simulator. */
export class PromotionStore {
  readonly #options: PromotionStoreOptions;
  readonly #random: Random;
  readonly #reference: ReferenceData;
  readonly #uploads: UploadStore;
  readonly #promotions = new Map<string, PromotionRecord>();
  /** Tags known to the organisation: existing names are reused, unknown ones created. */
  readonly #tags = new Set<string>();
  #nextPublicId = 123;

  constructor(
    random: Random,
    reference: ReferenceData,
    uploads: UploadStore,
    options: PromotionStoreOptions = {},
  ) {
    this.#options = options;
    this.#random = random;
    this.#reference = reference;
    this.#uploads = uploads;
  }

  /**
   * Unknown upload ids are a validation problem of their field; known uploads that are still
   * processing are a 409 with one upload_not_ready detail each, so the caller retries shortly. An
   * upload that failed processing will never be ready, so it is a validation problem too.
   */
  #checkUploads(problems: Problems, refs: UploadRef[]): void {
    for (const ref of refs) {
      if (!this.#uploads.has(ref.uploadId)) problems.field(ref.field, `unknown upload ${ref.uploadId}`);
      else if (this.#uploads.statusOf(ref.uploadId) === "failed") {
        problems.field(ref.field, `upload ${ref.uploadId} failed processing; upload the file again`);
      }
    }
    problems.throwIfAny();
    const notReady = [...new Set(refs.map((r) => r.uploadId))].filter(
      (id) => this.#uploads.statusOf(id) !== "completed",
    );
    if (notReady.length > 0) {
      throw new ApiError(
        "CONFLICT",
        `${notReady.length} referenced upload(s) not finished yet; retry after a short delay`,
        notReady.map((uploadId) => ({ type: "upload_not_ready" as const, uploadId })),
      );
    }
  }

  #newVersion(
    promotion: PromotionRecord,
    source: VersionRecord["source"],
    isFinancialPromotion: boolean | undefined,
  ): VersionRecord {
    const version: VersionRecord = {
      versionId: this.#random.uuid(),
      version: promotion.versions.length + 1,
      source,
      isFinancialPromotion: isFinancialPromotion ?? promotion.isFinancialPromotion,
      decision: "none",
      createdAt: new Date().toISOString(),
    };
    promotion.versions.push(version);
    // A new version is a new review cycle: the promotion is no longer expired.
    promotion.expired = false;
    return version;
  }

  /** Creates a promotion with its first version. */
  create(body: Record<string, unknown>): Record<string, unknown> {
    const problems = new Problems();
    const valid = validateCreation(body, this.#reference, problems, this.#options.rules);
    this.#checkUploads(problems, valid.uploadRefs);
    for (const tag of valid.tags) this.#tags.add(tag);
    const promotion: PromotionRecord = {
      promotionId: this.#random.uuid(),
      publicId: `PR-${String(this.#nextPublicId++).padStart(6, "0")}`,
      promotionName: body["promotionName"] as string,
      metadata: valid.metadata,
      tags: valid.tags,
      isFinancialPromotion: valid.isFinancialPromotion ?? true,
      expired: false,
      versions: [],
    };
    const version = this.#newVersion(promotion, "api", undefined);
    this.#promotions.set(promotion.promotionId, promotion);
    return {
      promotionId: promotion.promotionId,
      versionId: version.versionId,
      version: version.version,
      publicId: promotion.publicId,
      metadata: promotion.metadata,
      tags: promotion.tags,
    };
  }

  /** The promotion, or 404. */
  promotion(promotionId: string): PromotionRecord {
    requireUuidParam(promotionId, "promotionId");
    const promotion = this.#promotions.get(promotionId.toLowerCase());
    if (!promotion) throw new ApiError("NOT_FOUND", `Promotion ${promotionId} not found`);
    return promotion;
  }

  /** The version of a promotion, or 404 when either is unknown. */
  version(promotionId: string, versionId: string): { promotion: PromotionRecord; version: VersionRecord } {
    const promotion = this.promotion(promotionId);
    requireUuidParam(versionId, "versionId");
    const version = promotion.versions.find((v) => v.versionId === versionId.toLowerCase());
    if (!version)
      throw new ApiError("NOT_FOUND", `Version ${versionId} not found in promotion ${promotionId}`);
    return { promotion, version };
  }

  /** The read view: the latest version is the highest number, wherever it was created. */
  view(promotionId: string): Record<string, unknown> {
    const promotion = this.promotion(promotionId);
    const latest = promotion.versions[promotion.versions.length - 1]!;
    return {
      promotionId: promotion.promotionId,
      latestVersionId: latest.versionId,
      latestVersion: latest.version,
      status: promotion.expired ? "expired" : latest.decision,
      versionCount: promotion.versions.length,
    };
  }

  /** Adds a version through the API. */
  addVersion(promotionId: string, body: Record<string, unknown>): { versionId: string; version: number } {
    const promotion = this.promotion(promotionId);
    const problems = new Problems();
    const valid = validateVersion(body, problems, this.#options.rules);
    this.#checkUploads(problems, valid.uploadRefs);
    const version = this.#newVersion(promotion, "api", valid.isFinancialPromotion);
    return { versionId: version.versionId, version: version.version };
  }

  /** Adds a version "from the web application" (control surface). */
  addWebAppVersion(
    promotionId: string,
    body: Record<string, unknown> = {},
  ): { versionId: string; version: number } {
    const promotion = this.promotion(promotionId);
    const flag = body["isFinancialPromotion"];
    const version = this.#newVersion(promotion, "web-app", typeof flag === "boolean" ? flag : undefined);
    return { versionId: version.versionId, version: version.version };
  }

  /**
   * Submits a version for review. A saved version becomes pending (reviewer and deadline apply);
   * any later submit returns the current status and ignores them, so a retry is always safe.
   */
  submit(promotionId: string, versionId: string, body: Record<string, unknown>): { status: Decision } {
    const { version } = this.version(promotionId, versionId);
    const fields = this.#options.submitFields ?? { reviewer: "reviewerEmail", deadline: "deadline" };
    const reviewer = body[fields.reviewer];
    const deadline = body[fields.deadline];
    if (this.#options.validateSubmit ?? true) {
      const problems = new Problems();
      if (reviewer !== undefined && !isEmail(reviewer))
        problems.field(fields.reviewer, "must be an email address");
      checkDeadline(problems, deadline, fields.deadline);
      problems.throwIfAny();
    }
    if (version.decision === "none") {
      version.decision = this.#options.submittedStatus ?? "pending";
      if (typeof reviewer === "string") version.reviewerEmail = reviewer;
      if (typeof deadline === "string") version.deadline = deadline;
    }
    return { status: version.decision };
  }

  /** The decision of any version of the promotion. */
  decision(promotionId: string, versionId: string): DecisionView {
    const { version } = this.version(promotionId, versionId);
    const view: DecisionView = { decision: version.decision };
    if (version.decidedByUserId !== undefined) view.decidedByUserId = version.decidedByUserId;
    if (version.decidedAt !== undefined) view.decidedAt = version.decidedAt;
    if (version.rationale !== undefined) view.rationale = version.rationale;
    return view;
  }

  /** Records a decision (control surface); who and when are kept only for final decisions. */
  setDecision(promotionId: string, versionId: string, input: unknown): DecisionView {
    const { version } = this.version(promotionId, versionId);
    const problems = new Problems();
    const body = isObject(input) ? input : {};
    if (!DECISIONS.includes(body["decision"] as Decision)) {
      problems.field("decision", `must be one of ${DECISIONS.join(", ")}`);
    }
    for (const field of ["rationale", "decidedByUserId"]) {
      if (body[field] !== undefined && typeof body[field] !== "string")
        problems.field(field, "must be a string");
    }
    problems.throwIfAny();
    const decision = body["decision"] as Decision;
    version.decision = decision;
    if (typeof body["rationale"] === "string") version.rationale = body["rationale"];
    else delete version.rationale;
    if (UNDER_REVIEW.includes(decision)) {
      delete version.decidedByUserId;
      delete version.decidedAt;
    } else {
      version.decidedByUserId =
        typeof body["decidedByUserId"] === "string" ? body["decidedByUserId"] : "sim-reviewer";
      version.decidedAt = new Date().toISOString();
    }
    return this.decision(promotionId, versionId);
  }

  /** Marks a promotion expired (control surface); a new version clears it. */
  expire(promotionId: string): Record<string, unknown> {
    this.promotion(promotionId).expired = true;
    return this.view(promotionId);
  }

  /** Forgets every promotion and tag. */
  reset(): void {
    this.#promotions.clear();
    this.#tags.clear();
    this.#nextPublicId = 123;
  }
}
