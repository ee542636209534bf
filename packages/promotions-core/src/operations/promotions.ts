/**
 * The main API's promotion operations, each declared once in its own module (its name, method, the
 * spec's path template, the schemas of its body and its answer, its statuses, when it may be sent
 * again and the budget it spends), so that a bundle running one of them holds only that one's
 * schemas. The client (promotions.ts) and the standalone functions (`/slim`) run them; a description
 * of the service is generated from them.
 */

export { createPromotion } from "./create-promotion.js";
export { createVersion } from "./create-version.js";
export { getDecision } from "./get-decision.js";
export { getEvaluation } from "./get-evaluation.js";
export { getPromotion } from "./get-promotion.js";
export { startEvaluation } from "./start-evaluation.js";
export { submitVersion } from "./submit-version.js";
