/**
 * The slim path: a small client and one standalone function per operation, for a bundle that needs a
 * few operations (Speakeasy's standalone functions, AWS SDK v3's bare client with its commands).
 * `createPromotionsCore(options)` makes the client; each function takes it first and is named after
 * the operation it runs (`promotions.create` is `promotionsCreate(core, body, { signal })`). A bundle
 * holds the functions it imports and no other: their declarations and schemas, not the rest. The same
 * checks, budget, origin policy, validation and typed errors as `createPromotionsClient`.
 * @packageDocumentation
 */
export {
  createPromotionsCore,
  type PromotionsCore,
  type PromotionsCoreOptions,
} from "./core.js";
export { promotionsCreate } from "./standalone/promotions-create.js";
export { promotionsCreateVersion } from "./standalone/promotions-create-version.js";
export { promotionsDecision } from "./standalone/promotions-decision.js";
export { promotionsEvaluate } from "./standalone/promotions-evaluate.js";
export { promotionsEvaluation } from "./standalone/promotions-evaluation.js";
export { promotionsGet } from "./standalone/promotions-get.js";
export { promotionsSubmit } from "./standalone/promotions-submit.js";
export type * from "./types.js";
export type { UploadWaiter } from "./upload-wait.js";
