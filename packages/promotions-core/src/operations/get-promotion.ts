/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { promotionResponseSchema } from "../schemas/responses.js";
import { PROMOTION } from "./paths.js";

/** Reads a promotion: its latest version, status and version count. */
export const getPromotion = {
  name: "promotions.get",
  method: "GET",
  path: PROMOTION,
  response: promotionResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;
