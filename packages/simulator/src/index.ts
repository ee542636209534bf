/**
 * `@promo-review/simulator`: a local stand-in for the Promotion Compliance Review service (main API)
 * and its file service, with signed webhook delivery, fault injection and a control surface. Node
 * only. Written from the service specification alone.
 */
export type { Keys } from "./auth.js";
// The command's logic, so another command (the `promo-review simulator` subcommand) can run it as is.
export { type CliIo, parseCliArgs, runCli, startupInfo } from "./cli.js";
export type { SimulatorControl } from "./control.js";
export type { ErrorCode, ErrorDetail } from "./envelope.js";
export type { EvaluationIssue, EvaluationRecord } from "./evaluations.js";
export type { Fault, FaultKind, FaultSpec } from "./faults.js";
export type { DesignFrame } from "./links.js";
export {
  GAP_POINTS,
  type GapPoint,
  type ProfileChoice,
  resolveProfile,
  type SimulatorProfile,
  variantOf,
} from "./profile.js";
export type { Decision, DecisionInput, DecisionView } from "./promotions.js";
export type { Channel, Jurisdiction, Product, ReferenceData, TargetMarket } from "./reference.js";
export type { RequestLogEntry } from "./request-log.js";
export { type ServiceRoute, serviceRoutes } from "./route-table.js";
export { type SampleTextPromotion, sampleTextPromotion } from "./samples.js";
export { type Simulator, startSimulator } from "./simulator.js";
export type { Delays, SimulatorOptions } from "./state.js";
export type { UploadServerView, UploadStatus, UploadView } from "./uploads.js";
export type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from "./webhooks.js";
export { signWebhook } from "./webhooks.js";
