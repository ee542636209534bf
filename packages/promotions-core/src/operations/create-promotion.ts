/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { createPromotionSchema } from "../schemas/create-promotion.js";
import { createPromotionResponseSchema } from "../schemas/create-promotion-response.js";
import { PROMOTIONS } from "./paths.js";

/** Creates a promotion with its first version. Resent only after a 429 or a 409 `upload_not_ready`. */
export const createPromotion = {
  name: "promotions.create",
  method: "POST",
  path: PROMOTIONS,
  request: createPromotionSchema,
  response: createPromotionResponseSchema,
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
  refusal: "The promotion creation request is invalid",
} as const satisfies OperationDeclaration;
