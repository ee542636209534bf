import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { getDecision } from "../operations/get-decision.js";
import { runDeclared } from "../run-declared.js";
import type { Decision, OperationOptions } from "../types.js";

/** Reads the review decision of a version (`GET …/versions/{versionId}/decision`, operation `promotions.decision`). */
export function promotionsDecision(
  core: PromotionsCore,
  promotionId: string,
  versionId: string,
  options: OperationOptions = {},
): Promise<WithResponse<Decision>> {
  return runDeclared<Decision>(core.http, getDecision, { ...options, params: { promotionId, versionId } });
}
