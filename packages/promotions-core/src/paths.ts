/**
 * The spec's paths as templates: the requests' `urlTemplate`, which observers name them by. An id is
 * put in only once checked to be a uuid (see `fill` in promotions.ts).
 */

/** `/v1/promotions`. */
export const PROMOTIONS = "/v1/promotions";
/** `/v1/promotions/{promotionId}`. */
export const PROMOTION = `${PROMOTIONS}/{promotionId}`;
/** `/v1/promotions/{promotionId}/versions/{versionId}`. */
export const VERSION = `${PROMOTION}/versions/{versionId}`;
/** Where an evaluation is read back by default (not shown in the spec; docs/gaps.md). */
export const EVALUATION = `${VERSION}/evaluations/{evaluationId}`;
