import type { WithResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { createVersion } from "../operations/create-version.js";
import { runDeclared } from "../run-declared.js";
import type { NewVersionRequest, NewVersionResult, OperationOptions } from "../types.js";
import { waitingForUploads } from "../upload-wait.js";

/**
 * Adds a version (`POST /v1/promotions/{promotionId}/versions`, operation `promotions.createVersion`):
 * the id and the body checked before anything is sent, a 409 `upload_not_ready` waited out, never
 * resent after a failure that may have reached the service.
 */
export function promotionsCreateVersion(
  core: PromotionsCore,
  promotionId: string,
  body: NewVersionRequest,
  options: OperationOptions = {},
): Promise<WithResponse<NewVersionResult>> {
  return runDeclared<NewVersionResult>(core.http, createVersion, {
    ...options,
    params: { promotionId },
    body,
    validate: core.validate,
    around: waitingForUploads(core, createVersion.name, "The new version", options.signal),
  });
}
