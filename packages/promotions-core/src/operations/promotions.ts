/**
 * The main API's promotion operations, each declared once: its name, method, the spec's path
 * template, the schemas of its body and its answer, its statuses, when it may be sent again and the
 * budget it spends. The client (promotions.ts) runs them; a description of the service is generated
 * from them.
 */
import type { OperationDeclaration } from "@promo-review/http";
import { createPromotionSchema } from "../schemas/create-promotion.js";
import { newVersionSchema } from "../schemas/new-version.js";
import {
  createPromotionResponseSchema,
  decisionResponseSchema,
  evaluationRecordResponseSchema,
  evaluationStartedResponseSchema,
  newVersionResponseSchema,
  promotionResponseSchema,
  submitResponseSchema,
} from "../schemas/responses.js";
import { submitSchema } from "../schemas/submit.js";

const PROMOTIONS = "/v1/promotions";
const PROMOTION = `${PROMOTIONS}/{promotionId}`;
const VERSION = `${PROMOTION}/versions/{versionId}`;

/** Creates a promotion with its first version. Resent only after a 429 or a 409 `upload_not_ready`. */
export const createPromotion = {
  name: "promotions.create",
  method: "POST",
  path: PROMOTIONS,
  request: createPromotionSchema,
  refusal: "The promotion creation request is invalid",
  response: createPromotionResponseSchema,
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Reads a promotion: its latest version, status and version count. */
export const getPromotion = {
  name: "promotions.get",
  method: "GET",
  path: PROMOTION,
  response: promotionResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Adds a version. Resent only after a 429 or a 409 `upload_not_ready`. */
export const createVersion = {
  name: "promotions.createVersion",
  method: "POST",
  path: `${PROMOTION}/versions`,
  request: newVersionSchema,
  refusal: "The new-version request is invalid",
  response: newVersionResponseSchema,
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Submits a version for review: the service documents it as a safe retry. */
export const submitVersion = {
  name: "promotions.submit",
  method: "POST",
  path: `${VERSION}/submit`,
  request: submitSchema,
  refusal: "The submit request is invalid",
  response: submitResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Reads the review decision of a version. */
export const getDecision = {
  name: "promotions.decision",
  method: "GET",
  path: `${VERSION}/decision`,
  response: decisionResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Starts an evaluation (202, status processing). */
export const startEvaluation = {
  name: "promotions.evaluate",
  method: "POST",
  path: `${VERSION}/evaluate`,
  response: evaluationStartedResponseSchema,
  statuses: [202],
  resend: "notProcessed",
  budget: "shared",
} as const satisfies OperationDeclaration;

/**
 * Reads an evaluation back. Not shown in the spec (docs/gaps.md): the default path, which a client's
 * `evaluationPath` may replace.
 */
export const getEvaluation = {
  name: "promotions.evaluation",
  method: "GET",
  path: `${VERSION}/evaluations/{evaluationId}`,
  response: evaluationRecordResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;
