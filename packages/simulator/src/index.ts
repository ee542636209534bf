/**
 * `@promo-review/simulator`: a local stand-in for the Promotion Compliance Review service (main API)
 * and its file service, with signed webhook delivery, fault injection and a control surface. Node
 * only. Written from the service specification alone.
 */
import type { Keys } from "./auth.js";
import { controlRoutes, createControl, type SimulatorControl } from "./control.js";
import type { SimulatorProfile } from "./profile.js";
import type { ReferenceData } from "./reference.js";
import { listen, stop } from "./server.js";
import { createState, type SimulatorOptions } from "./state.js";

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
export { type SampleTextPromotion, sampleTextPromotion } from "./samples.js";
export type { Delays, SimulatorOptions } from "./state.js";
export type { UploadServerView, UploadStatus, UploadView } from "./uploads.js";
export type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from "./webhooks.js";
export { signWebhook } from "./webhooks.js";

/** A running simulator. */
export interface Simulator {
  /** Main API base URL, e.g. `http://127.0.0.1:PORT` (paths begin with /v1; control under /_sim). */
  baseUrl: string;
  /** File service base URL. */
  filesUrl: string;
  /** A valid production API key (same as `keys.apiKey`). */
  apiKey: string;
  /** Every key the simulator knows, valid or not. */
  keys: Keys;
  /** A file-service user session token. */
  sessionToken: string;
  /** The session token's workspace id (send it in `x-service-workspace-id`). */
  workspaceId: string;
  /** A sample X-External-User-ID value. */
  externalUserId: string;
  /** The first webhook signing secret (`whsec_...`). */
  webhookSecret: string;
  /** Every webhook signing secret. */
  webhookSecrets: string[];
  /** Seeded reference data ids. */
  reference: ReferenceData;
  /** The seed in use (pass it back in `options.seed` to replay a run). */
  seed: number;
  /**
   * The variant profile in use: the reading taken of each row of docs/gaps.md (`default` everywhere
   * for profile 0). Print it when a test fails under a profile.
   */
  profile: SimulatorProfile;
  /** Programmatic control (the same operations as the HTTP surface under /_sim). */
  control: SimulatorControl;
  /** Stops both servers, ends every socket, timer and pending webhook retry, and deletes stored bytes. */
  close(): Promise<void>;
}

/** Starts both servers on 127.0.0.1 (ephemeral ports unless given). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const state = await createState(options);
  const control = createControl(state);
  let simulator: Simulator | undefined;
  const info = () => {
    const { control: _control, close: _close, ...rest } = simulator!;
    return { ...rest };
  };
  const routes = controlRoutes(control, info);
  const main = await listen(state, "main", options.mainPort ?? 0, routes).catch(async (error: unknown) => {
    await state.uploads.close();
    throw error;
  });
  const files = await listen(state, "files", options.filesPort ?? 0, routes).catch(async (error: unknown) => {
    await stop(main.server);
    await state.uploads.close();
    throw error;
  });
  let closing: Promise<void> | undefined;
  simulator = {
    baseUrl: main.url,
    filesUrl: files.url,
    apiKey: state.credentials.keys.apiKey,
    keys: { ...state.credentials.keys },
    sessionToken: state.credentials.sessionToken,
    workspaceId: state.credentials.workspaceId,
    externalUserId: state.externalUserId,
    webhookSecret: state.webhookSecrets[0]!,
    webhookSecrets: [...state.webhookSecrets],
    reference: structuredClone(state.reference),
    seed: state.seed,
    profile: structuredClone(state.profile),
    control,
    close: () => {
      closing ??= (async () => {
        state.scheduler.clear();
        state.webhooks.close();
        await Promise.all([stop(main.server), stop(files.server)]);
        await state.uploads.close();
      })();
      return closing;
    },
  };
  return simulator;
}
