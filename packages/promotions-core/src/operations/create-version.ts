/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { newVersionSchema } from "../schemas/new-version.js";
import { newVersionResponseSchema } from "../schemas/responses.js";
import { PROMOTION } from "./paths.js";

/** Adds a version. Resent only after a 429 or a 409 `upload_not_ready`. */
export const createVersion = {
  name: "promotions.createVersion",
  method: "POST",
  path: `${PROMOTION}/versions`,
  request: newVersionSchema,
  response: newVersionResponseSchema,
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
  refusal: "The new-version request is invalid",
} as const satisfies OperationDeclaration;
