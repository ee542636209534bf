/**
 * What the spec states about each success answer of the main API, as valibot schemas: the required
 * fields, their types, uuid-ness and the closed enums. Only what the spec states is required (a field
 * it calls optional or does not name is checked only when present, or not at all), and every schema
 * is loose, so unknown fields are kept. `correlationId` is not required here: the HTTP client takes it
 * from the body, else the `X-Correlation-ID` header, and the service echoes a caller's own trace id,
 * which need not be a uuid.
 */
import * as v from "valibot";
import { DECISION_VALUES, REVIEW_STATUSES } from "../limits.js";
import {
  plainObjectAnswer as plainObject,
  positiveIntegerAnswer as positiveInteger,
  uuidAnswer as uuid,
} from "./answer-fields.js";
import { stringSchema } from "./primitives.js";

export { createPromotionResponseSchema } from "./create-promotion-response.js";

/** The promotion read view (GET /v1/promotions/{id}). `status` is the closed review-status enum. */
export const promotionResponseSchema = v.looseObject({
  promotionId: uuid,
  latestVersionId: uuid,
  latestVersion: positiveInteger,
  status: v.picklist(REVIEW_STATUSES, `must be one of ${REVIEW_STATUSES.join(", ")}`),
  versionCount: positiveInteger,
});

/** The new-version response (201). */
export const newVersionResponseSchema = v.looseObject({ versionId: uuid, version: positiveInteger });

/** The submit response: a status "for example pending" (an open value, so any string). */
export const submitResponseSchema = v.looseObject({ status: stringSchema });

/** The decision (closed enum; its three other fields optional). */
export const decisionResponseSchema = v.looseObject({
  decision: v.picklist(DECISION_VALUES, `must be one of ${DECISION_VALUES.join(", ")}`),
  decidedByUserId: v.optional(stringSchema),
  decidedAt: v.optional(stringSchema),
  rationale: v.optional(stringSchema),
});

/** The evaluation trigger (202): an evaluation id and status `processing`. */
export const evaluationStartedResponseSchema = v.looseObject({
  evaluationId: uuid,
  status: v.literal("processing", "must be processing"),
});

/**
 * An evaluation read back: the spec shows no read endpoint (docs/gaps.md), so only what the client
 * relies on is required, `status` (any stringSchema); `evaluationId` is checked as a uuid when present.
 */
export const evaluationRecordResponseSchema = v.looseObject({
  evaluationId: v.optional(uuid),
  status: stringSchema,
});

/** A channel: id (uuid) and name. */
export const channelSchema = v.looseObject({ id: uuid, name: stringSchema });

/** A jurisdiction: id (uuid), name and countryCode. */
export const jurisdictionSchema = v.looseObject({ id: uuid, name: stringSchema, countryCode: stringSchema });

/** A product or target market: the spec does not show their fields, so any JSON object. */
export const openRecordSchema = plainObject;

/** The channel list (GET /v1/channels): its items under `channels`. */
export const channelListResponseSchema = v.looseObject({ channels: v.array(channelSchema) });

/** The jurisdiction list (GET /v1/jurisdictions): its items under `jurisdictions`. */
export const jurisdictionListResponseSchema = v.looseObject({ jurisdictions: v.array(jurisdictionSchema) });

/** The product list (docs/gaps.md: path and fields not shown): its items under `products`. */
export const productListResponseSchema = v.looseObject({ products: v.array(openRecordSchema) });

/** The target-market list (docs/gaps.md: path and fields not shown): its items under `targetMarkets`. */
export const targetMarketListResponseSchema = v.looseObject({ targetMarkets: v.array(openRecordSchema) });

/** A comment reply's answer (docs/gaps.md row 14: 201 `{commentId, parentCommentId, correlationId}`). */
export const commentReplyResponseSchema = v.looseObject({ parentCommentId: stringSchema });
