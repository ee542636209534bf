/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { evaluationRecordResponseSchema } from "../schemas/responses.js";
import { VERSION } from "./paths.js";

/**
 * Reads an evaluation back. Not shown in the spec (docs/gaps.md): the default path, which a client's
 * `evaluationPath` may replace.
 */
export const getEvaluation = {
  name: "promotions.evaluation",
  method: "GET",
  path: `${VERSION}/evaluations/{evaluationId}`,
  response: evaluationRecordResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;
