/**
 * The spec's path templates the promotion operations share, each written out whole: a template
 * literal built from another is kept by a bundler even where unused, a plain string is dropped.
 */

/** The promotions collection. */
export const PROMOTIONS = "/v1/promotions";
/** One promotion. */
export const PROMOTION = "/v1/promotions/{promotionId}";
/** One version of a promotion. */
export const VERSION = "/v1/promotions/{promotionId}/versions/{versionId}";
