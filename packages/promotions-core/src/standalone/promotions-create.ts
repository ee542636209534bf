import type { WithResponse } from "@promo-review/http";
import { withResponse } from "@promo-review/http";
import type { PromotionsCore } from "../core.js";
import { createPromotion } from "../operations/create-promotion.js";
import { runDeclared } from "../run-declared.js";
import type { CreatePromotionRequest, CreatePromotionResult, OperationOptions } from "../types.js";
import { waitingForUploads } from "../upload-wait.js";

/**
 * Creates a promotion with its first version (`POST /v1/promotions`, operation `promotions.create`):
 * the body checked against every stated rule before anything is sent (`tags` trimmed and
 * deduplicated), a 409 `upload_not_ready` waited out, never resent after a failure that may have
 * reached the service (the error says the promotion may exist). The answer's variants are evened
 * out: `metadata` is `{}` and `tags` `[]` when the service sent none.
 */
export async function promotionsCreate(
  core: PromotionsCore,
  body: CreatePromotionRequest,
  options: OperationOptions = {},
): Promise<WithResponse<CreatePromotionResult>> {
  const data = await runDeclared<CreatePromotionResult>(core.http, createPromotion, {
    ...options,
    body,
    validate: core.validate,
    around: waitingForUploads(core, createPromotion.name, "The promotion", options.signal),
  });
  // The answer was checked: `metadata` and `tags`, when present, are an object and an array.
  const result = { ...data, metadata: data.metadata ?? {}, tags: data.tags ?? [] };
  return withResponse(result, data.$response);
}
