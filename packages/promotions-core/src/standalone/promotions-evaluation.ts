import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { getEvaluation } from "../operations/get-evaluation.js";
import { runDeclared } from "../run-declared.js";
import type { EvaluationRecord, OperationOptions } from "../types.js";

/**
 * Reads an evaluation back (operation `promotions.evaluation`), at the core's `evaluationPath` when it
 * has one (the spec shows no read endpoint: then the request names no template). Prefer the
 * evaluation-completed webhook: every read spends the shared main-API budget.
 */
export function promotionsEvaluation(
  core: PromotionsCore,
  promotionId: string,
  versionId: string,
  evaluationId: string,
  options: OperationOptions = {},
): Promise<WithResponse<EvaluationRecord>> {
  const { evaluationPath } = core;
  return runDeclared<EvaluationRecord>(core.http, getEvaluation, {
    ...options,
    params: { promotionId, versionId, evaluationId },
    // Called once the ids were checked against the template, as the full client does.
    path: evaluationPath && (() => evaluationPath(promotionId, versionId, evaluationId)),
  });
}
