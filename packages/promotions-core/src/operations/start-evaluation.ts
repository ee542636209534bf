/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { evaluationStartedResponseSchema } from "../schemas/responses.js";
import { VERSION } from "./paths.js";

/** Starts an evaluation (202, status processing). */
export const startEvaluation = {
  name: "promotions.evaluate",
  method: "POST",
  path: `${VERSION}/evaluate`,
  response: evaluationStartedResponseSchema,
  statuses: [202],
  resend: "notProcessed",
  budget: "shared",
} as const satisfies OperationDeclaration;
