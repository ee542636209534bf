import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { submitVersion } from "../operations/submit-version.js";
import { runDeclared } from "../run-declared.js";
import type { OperationOptions, SubmitRequest, SubmitResult } from "../types.js";

/**
 * Submits a version for review (`POST …/versions/{versionId}/submit`, operation `promotions.submit`).
 * The service documents it as a safe retry, so it is retried like a GET.
 */
export function promotionsSubmit(
  core: PromotionsCore,
  promotionId: string,
  versionId: string,
  body: SubmitRequest = {},
  options: OperationOptions = {},
): Promise<WithResponse<SubmitResult>> {
  return runDeclared<SubmitResult>(core.http, submitVersion, {
    ...options,
    params: { promotionId, versionId },
    body,
    validate: core.validate,
  });
}
