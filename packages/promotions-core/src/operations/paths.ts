/** The spec's path templates the promotion operations share. */

/** The promotions collection. */
export const PROMOTIONS = "/v1/promotions";
/** One promotion. */
export const PROMOTION = `${PROMOTIONS}/{promotionId}`;
/** One version of a promotion. */
export const VERSION = `${PROMOTION}/versions/{versionId}`;
