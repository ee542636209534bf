/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { submitResponseSchema } from "../schemas/responses.js";
import { submitSchema } from "../schemas/submit.js";
import { VERSION } from "./paths.js";

/** Submits a version for review: the service documents it as a safe retry. */
export const submitVersion = {
  name: "promotions.submit",
  method: "POST",
  path: `${VERSION}/submit`,
  request: submitSchema,
  response: submitResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
  refusal: "The submit request is invalid",
} as const satisfies OperationDeclaration;
