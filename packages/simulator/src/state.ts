/**
 * The state of one simulator instance and the wiring between its parts. Both servers and the
 * control surface work on this one object.
 */
import { randomInt } from "node:crypto";
import { type Credentials, issueCredentials } from "./auth.js";
import { Evaluations } from "./evaluations.js";
import { FaultRegistry } from "./faults.js";
import { LinkCapture } from "./links.js";
import { PromotionStore } from "./promotions.js";
import { createRandom, type Random } from "./random.js";
import { SlidingWindowLimiter } from "./rate-limit.js";
import { createReferenceData, type ReferenceData } from "./reference.js";
import { RequestLog } from "./request-log.js";
import { Scheduler } from "./scheduler.js";
import { UploadStore } from "./uploads.js";
import { generateSecret, WebhookDispatcher } from "./webhooks.js";

/** Options of {@link startSimulator}. Every field is optional. */
export interface SimulatorOptions {
  /** Main API port; 0 (default) picks an ephemeral port. */
  mainPort?: number;
  /** File service port; 0 (default) picks an ephemeral port. */
  filesPort?: number;
  /** Rate-limit window (default 60 000 ms); tests scale it down, e.g. 1000, to run a minute's budget in a second. */
  rateLimitWindowMs?: number;
  /** Main-API requests per window per key (default 60). */
  mainApiLimit?: number;
  /** `POST /v1/links` requests per window per key (default 10). */
  linkCaptureLimit?: number;
  /** Time from an upload's last byte to `completed` (default 200 ms). */
  uploadProcessingDelayMs?: number;
  /** Time until a link import completes (default 200 ms). */
  linkImportDelayMs?: number;
  /** Time until an evaluation completes and its webhook is sent (default 200 ms). */
  evaluationDelayMs?: number;
  /**
   * Time from an evaluation's completion until its comments can be replied to (default 300 ms); before
   * that a reply answers `PARENT_NOT_FOUND`, as the spec says comment indexing is asynchronous.
   */
  commentIndexDelayMs?: number;
  /** Largest chunk a PUT may carry (default 50 MiB, 52428800); returned at initiation. */
  maxChunkSize?: number;
  /** `whsec_` secrets; default one generated. Several secrets give several signatures (rotation). */
  webhookSecrets?: string[];
  /** Delays between delivery attempts (default [100, 500, 2000, 5000]). */
  webhookRetryDelaysMs?: number[];
  /** Webhook endpoints configured from the start (more can be added through the control surface). */
  webhookUrls?: string[];
  /** Seeds generated data and fault randomness (default random; exposed as `Simulator.seed`). */
  seed?: number;
  /** Parent directory of the temporary directory for uploaded bytes (default the OS temp dir); removed on close. */
  storageDir?: string;
}

/** The three processing delays, adjustable at run time. */
export interface Delays {
  uploadProcessingDelayMs: number;
  linkImportDelayMs: number;
  evaluationDelayMs: number;
  commentIndexDelayMs: number;
}

/** Everything one simulator holds. */
export interface SimulatorState {
  seed: number;
  random: Random;
  credentials: Credentials;
  externalUserId: string;
  webhookSecrets: string[];
  webhookUrls: string[];
  reference: ReferenceData;
  delays: Delays;
  initialDelays: Delays;
  scheduler: Scheduler;
  uploads: UploadStore;
  promotions: PromotionStore;
  links: LinkCapture;
  webhooks: WebhookDispatcher;
  evaluations: Evaluations;
  faults: FaultRegistry;
  mainLimiter: SlidingWindowLimiter;
  linkLimiter: SlidingWindowLimiter;
  log: RequestLog;
}

/** Builds the state from the options (creates the temporary storage directory). */
export async function createState(options: SimulatorOptions): Promise<SimulatorState> {
  const seed = (options.seed ?? randomInt(2 ** 31)) >>> 0;
  const random = createRandom(seed);
  const credentials = issueCredentials(random);
  const reference = createReferenceData(random);
  const webhookSecrets = options.webhookSecrets?.length
    ? [...options.webhookSecrets]
    : [generateSecret(random)];
  const initialDelays: Delays = {
    uploadProcessingDelayMs: options.uploadProcessingDelayMs ?? 200,
    linkImportDelayMs: options.linkImportDelayMs ?? 200,
    evaluationDelayMs: options.evaluationDelayMs ?? 200,
    commentIndexDelayMs: options.commentIndexDelayMs ?? 300,
  };
  const delays = { ...initialDelays };
  const scheduler = new Scheduler();
  const uploadOptions = {
    random,
    maxChunkSize: options.maxChunkSize ?? 52_428_800,
    processingDelayMs: () => delays.uploadProcessingDelayMs,
    ...(options.storageDir ? { storageDir: options.storageDir } : {}),
  };
  const uploads = await UploadStore.create(uploadOptions);
  const webhooks = new WebhookDispatcher({
    secrets: webhookSecrets,
    retryDelaysMs: options.webhookRetryDelaysMs ?? [100, 500, 2000, 5000],
    random,
    scheduler,
  });
  const webhookUrls = options.webhookUrls ?? [];
  for (const url of webhookUrls) webhooks.addEndpoint(url);
  const windowMs = options.rateLimitWindowMs ?? 60_000;
  return {
    seed,
    random,
    credentials,
    externalUserId: `user-${random.bytes(4).toString("hex")}`,
    webhookSecrets,
    webhookUrls,
    reference,
    delays,
    initialDelays,
    scheduler,
    uploads,
    promotions: new PromotionStore(random, reference, uploads),
    links: new LinkCapture({ random, seed, uploads, importDelayMs: () => delays.linkImportDelayMs }),
    webhooks,
    evaluations: new Evaluations(
      random,
      scheduler,
      webhooks,
      () => delays.evaluationDelayMs,
      () => delays.commentIndexDelayMs,
    ),
    faults: new FaultRegistry(seed),
    mainLimiter: new SlidingWindowLimiter(options.mainApiLimit ?? 60, windowMs),
    linkLimiter: new SlidingWindowLimiter(options.linkCaptureLimit ?? 10, windowMs),
    log: new RequestLog(),
  };
}

/**
 * Returns the simulator to its starting point: no promotions, uploads, imports, evaluations,
 * deliveries, faults, request log or rate-limit history; delays and webhook endpoints as in the
 * options. Credentials, secrets and reference data stay, so clients keep working.
 */
export async function resetState(state: SimulatorState): Promise<void> {
  state.scheduler.clear();
  state.webhooks.reset(state.webhookUrls);
  state.promotions.reset();
  state.links.reset();
  state.evaluations.reset();
  state.faults.clear();
  state.mainLimiter.clear();
  state.linkLimiter.clear();
  state.log.clear();
  Object.assign(state.delays, state.initialDelays);
  await state.uploads.reset();
}

/** Every secret the request log must never show. */
export function secretsOf(state: SimulatorState): string[] {
  return [...Object.values(state.credentials.keys), state.credentials.sessionToken, ...state.webhookSecrets];
}
