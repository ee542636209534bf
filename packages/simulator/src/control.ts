/**
 * The control surface: the same operations programmatically (`simulator.control`) and over HTTP
 * under `/_sim/...` on the main port (no auth, not rate limited), so tests in other runtimes (Deno,
 * browsers, workerd) can drive the simulator too.
 */
import { readJsonObject } from "./body.js";
import { ApiError } from "./envelope.js";
import type { EvaluationRecord } from "./evaluations.js";
import type { Fault, FaultSpec } from "./faults.js";
import { isObject } from "./problems.js";
import type { DecisionInput, DecisionView } from "./promotions.js";
import type { RequestLogEntry } from "./request-log.js";
import { created, type Handler, ok, type Route } from "./router.js";
import { type Delays, resetState, type SimulatorState } from "./state.js";
import type { UploadServerView } from "./uploads.js";
import type { WebhookDelivery, WebhookEndpoint } from "./webhooks.js";

/** Programmatic control of a running simulator. Failures throw the same errors the HTTP surface returns. */
export interface SimulatorControl {
  /** Clears all state (see docs/gaps.md for what survives: credentials, secrets, reference data). */
  reset(): Promise<void>;
  /** The request log (main API and file service, not the control surface), secrets redacted. */
  requests(): RequestLogEntry[];
  /** Adds a version "from the web application"; it becomes the latest version. */
  addWebAppVersion(
    promotionId: string,
    body?: { isFinancialPromotion?: boolean },
  ): { versionId: string; version: number };
  /** Records a review decision on any version. */
  setDecision(promotionId: string, versionId: string, input: DecisionInput): DecisionView;
  /** Marks a promotion expired (its status until a new version is added). */
  expirePromotion(promotionId: string): Record<string, unknown>;
  /** Reads the processing delays. */
  delays(): Delays;
  /** Changes processing delays (applies to work started afterwards). */
  setDelays(delays: Partial<Delays>): Delays;
  /** Adds a webhook delivery endpoint. */
  addWebhookEndpoint(url: string): WebhookEndpoint;
  /** The webhook endpoints. */
  webhookEndpoints(): WebhookEndpoint[];
  /** Every webhook delivery with its attempts and status. */
  webhookDeliveries(): WebhookDelivery[];
  /** Redelivers a delivery as a new message, with commentId omitted from its issues. */
  replayWebhook(deliveryId: string): WebhookDelivery;
  /** The server-side view of an upload (status, receivedBytes, size, sha256 of the stored bytes). */
  upload(uploadId: string): UploadServerView;
  /** Every evaluation started. */
  evaluations(): EvaluationRecord[];
  /** Adds a fault. */
  addFault(spec: FaultSpec): Fault;
  /** The active faults. */
  faults(): Fault[];
  /** Removes one fault; false when unknown. */
  removeFault(faultId: string): boolean;
  /** Removes every fault; returns how many there were. */
  clearFaults(): number;
}

function checkDelays(input: unknown): Partial<Delays> {
  const body = isObject(input) ? input : {};
  const out: Partial<Delays> = {};
  for (const key of [
    "uploadProcessingDelayMs",
    "linkImportDelayMs",
    "evaluationDelayMs",
    "commentIndexDelayMs",
  ] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new ApiError("VALIDATION_ERROR", `${key} must be a non-negative number`, [
        { type: "field_error", field: key, message: "must be a non-negative number" },
      ]);
    }
    out[key] = value;
  }
  return out;
}

/** Builds the programmatic control over a simulator's state. */
export function createControl(state: SimulatorState): SimulatorControl {
  return {
    reset: () => resetState(state),
    requests: () => state.log.entries(),
    addWebAppVersion: (promotionId, body = {}) => state.promotions.addWebAppVersion(promotionId, body),
    setDecision: (promotionId, versionId, input) =>
      state.promotions.setDecision(promotionId, versionId, input),
    expirePromotion: (promotionId) => state.promotions.expire(promotionId),
    delays: () => ({ ...state.delays }),
    setDelays: (delays) => ({ ...Object.assign(state.delays, checkDelays(delays)) }),
    addWebhookEndpoint: (url) => state.webhooks.addEndpoint(url),
    webhookEndpoints: () => state.webhooks.endpoints(),
    webhookDeliveries: () => state.webhooks.deliveries(),
    replayWebhook: (deliveryId) => state.webhooks.replay(deliveryId),
    upload: (uploadId) => state.uploads.serverView(uploadId),
    evaluations: () => state.evaluations.list(),
    addFault: (spec) => state.faults.add(spec),
    faults: () => state.faults.list(),
    removeFault: (faultId) => state.faults.remove(faultId),
    clearFaults: () => state.faults.clear(),
  };
}

/** One route of the table below: the method, the pattern under `/_sim`, and the handler. */
function route(method: Route["method"], pattern: string, handler: Handler): Route {
  return { method, pattern: `/_sim${pattern}`, handler };
}

/** The HTTP control routes, each mirroring a {@link SimulatorControl} operation. `info` is served at GET /_sim/info. */
export function controlRoutes(control: SimulatorControl, info: () => Record<string, unknown>): Route[] {
  const body = readJsonObject;
  const id = (params: Record<string, string>, name: string) => params[name]!;
  return [
    route("GET", "/info", () => ok(info())),
    route("POST", "/reset", async () => {
      await control.reset();
      return ok({ reset: true });
    }),
    route("GET", "/requests", () => ok({ requests: control.requests() })),
    route("POST", "/promotions/:promotionId/web-app-versions", async ({ req, params }) =>
      created(control.addWebAppVersion(id(params, "promotionId"), await body(req))),
    ),
    route("POST", "/promotions/:promotionId/versions/:versionId/decision", async ({ req, params }) => {
      const input = (await body(req)) as unknown as DecisionInput;
      return ok({ ...control.setDecision(id(params, "promotionId"), id(params, "versionId"), input) });
    }),
    route("POST", "/promotions/:promotionId/expire", ({ params }) =>
      ok(control.expirePromotion(id(params, "promotionId"))),
    ),
    route("GET", "/delays", () => ok({ ...control.delays() })),
    route("POST", "/delays", async ({ req }) => ok({ ...control.setDelays(await body(req)) })),
    route("POST", "/webhooks/endpoints", async ({ req }) =>
      created({ ...control.addWebhookEndpoint((await body(req))["url"] as string) }),
    ),
    route("GET", "/webhooks/endpoints", () =>
      ok({ endpoints: control.webhookEndpoints(), deliveries: control.webhookDeliveries() }),
    ),
    route("GET", "/webhooks/deliveries", () => ok({ deliveries: control.webhookDeliveries() })),
    route("POST", "/webhooks/replay", async ({ req }) =>
      created({ ...control.replayWebhook((await body(req))["deliveryId"] as string) }),
    ),
    route("GET", "/uploads/:uploadId", ({ params }) => ok({ ...control.upload(id(params, "uploadId")) })),
    route("GET", "/evaluations", () => ok({ evaluations: control.evaluations() })),
    route("POST", "/faults", async ({ req }) =>
      created({ ...control.addFault((await body(req)) as unknown as FaultSpec) }),
    ),
    route("GET", "/faults", () => ok({ faults: control.faults() })),
    route("DELETE", "/faults", () => ok({ cleared: control.clearFaults() })),
    route("DELETE", "/faults/:faultId", ({ params }) => {
      const faultId = id(params, "faultId");
      if (!control.removeFault(faultId)) throw new ApiError("NOT_FOUND", `Fault ${faultId} not found`);
      return ok({ removed: faultId });
    }),
  ];
}
