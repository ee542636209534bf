/** One main-API operation, declared once (see `OperationDeclaration` of `@promo-review/http`). */
import type { OperationDeclaration } from "@promo-review/http";
import { decisionResponseSchema } from "../schemas/responses.js";
import { VERSION } from "./paths.js";

/** Reads the review decision of a version. */
export const getDecision = {
  name: "promotions.decision",
  method: "GET",
  path: `${VERSION}/decision`,
  response: decisionResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;
