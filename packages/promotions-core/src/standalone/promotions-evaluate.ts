import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { startEvaluation } from "../operations/start-evaluation.js";
import { runDeclared } from "../run-declared.js";
import type { EvaluationStarted, OperationOptions } from "../types.js";

/**
 * Starts an evaluation (`POST …/versions/{versionId}/evaluate`, operation `promotions.evaluate`): 202,
 * status `processing`; the result comes by the evaluation-completed webhook.
 */
export function promotionsEvaluate(
  core: PromotionsCore,
  promotionId: string,
  versionId: string,
  options: OperationOptions = {},
): Promise<WithResponse<EvaluationStarted>> {
  return runDeclared<EvaluationStarted>(core.http, startEvaluation, {
    ...options,
    params: { promotionId, versionId },
  });
}
