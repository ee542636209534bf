/**
 * Every operation of the package, declared once (see `OperationDeclaration` of `@promo-review/http`):
 * one import per declaration, so that a bundle takes only those it names.
 */

export { replyToComment } from "./comments.js";
export {
  createPromotion,
  createVersion,
  getDecision,
  getEvaluation,
  getPromotion,
  startEvaluation,
  submitVersion,
} from "./promotions.js";
export { listChannels, listJurisdictions, listProducts, listTargetMarkets } from "./reference.js";
