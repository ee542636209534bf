/**
 * Every main-API operation of the Promotion Compliance Review service, typed, with client-side
 * validation of every stated rule before any request.
 * @packageDocumentation
 */
export * from "./limits.js";
export { isCalendarDate, isIsoDateTime } from "./schemas/dates.js";
export { isReservedTag } from "./schemas/tags.js";
export type * from "./types.js";
export {
  toLocalIssues,
  validateCreatePromotion,
  validateId,
  validateNewVersion,
  validateSubmit,
} from "./validate.js";
