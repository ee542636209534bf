import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { getPromotion } from "../operations/get-promotion.js";
import { runDeclared } from "../run-declared.js";
import type { OperationOptions, Promotion } from "../types.js";

/**
 * Reads a promotion (`GET /v1/promotions/{promotionId}`, operation `promotions.get`): its latest
 * version, wherever it was created, its status and version count.
 */
export function promotionsGet(
  core: PromotionsCore,
  promotionId: string,
  options: OperationOptions = {},
): Promise<WithResponse<Promotion>> {
  return runDeclared<Promotion>(core.http, getPromotion, { ...options, params: { promotionId } });
}
