/**
 * The state of one simulator instance and the wiring between its parts. Both servers and the
 * control surface work on this one object.
 */
import { randomInt } from "node:crypto";
import { type Credentials, issueCredentials } from "./auth.js";
import { Evaluations } from "./evaluations.js";
import { FaultRegistry } from "./faults.js";
import { LinkCapture } from "./links.js";
import { resolveProfile, type SimulatorProfile, takes, variantOf } from "./profile.js";
import { PromotionStore, type PromotionStoreOptions } from "./promotions.js";
import { createRandom, type Random } from "./random.js";
import { SlidingWindowLimiter } from "./rate-limit.js";
import { createReferenceData, type ReferenceData } from "./reference.js";
import { RequestLog } from "./request-log.js";
import { Scheduler } from "./scheduler.js";
import { UploadStore } from "./uploads.js";
import { generateSecret, WebhookDispatcher, type WebhookEvent } from "./webhooks.js";

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
  /**
   * Variant profile seed (default 0, the simulator's own reading of every "not shown" point). Any
   * other seed picks, for each row of docs/gaps.md, another plausible reading (exposed as
   * `Simulator.profile`), so clients can prove they do not depend on the simulator's choices.
   */
  profile?: number;
  /**
   * The clock the rate limits read, in milliseconds (default `Date.now`). Tests pass a clock they
   * advance by hand, so a sliding window's edges do not depend on how loaded the machine is.
   */
  now?: () => number;
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
  profile: SimulatorProfile;
  /** Upload initiations per window per key, when the profile limits them (row 23). */
  initiationLimiter: SlidingWindowLimiter | undefined;
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
  /** The rate limits' clock (`SimulatorOptions.now`). */
  now: () => number;
  log: RequestLog;
}

/** The promotion rules a profile reads (rows 1, 2, 6, 10, 11 and 24). */
function promotionVariants(profile: SimulatorProfile): PromotionStoreOptions {
  const maxUploadIds = { "max-10": 10, "max-50": 50 }[variantOf(profile, 24)];
  return {
    rules: {
      typeField: takes(profile, 1, "type-ignored")
        ? null
        : takes(profile, 1, "named-type")
          ? "type"
          : undefined,
      jurisdictionOptional: takes(profile, 2, "jurisdiction-optional"),
      checkReferenceIds: !takes(profile, 2, "ids-unchecked"),
      formatOptional: takes(profile, 10, "format-optional"),
      maxUploadIds,
    },
    submittedStatus: takes(profile, 6, "submit-in-review") ? "in_review" : "pending",
    submitFields: takes(profile, 11, "other-names")
      ? { reviewer: "reviewer", deadline: "deadlineOverride" }
      : undefined,
    validateSubmit: !takes(profile, 11, "unvalidated"),
  };
}

/** The webhook message ids and payload shape a profile reads (rows 18 and 19). */
function webhookVariants(profile: SimulatorProfile) {
  const ids = variantOf(profile, 19);
  const shape = variantOf(profile, 18);
  return {
    messageId:
      ids === "uuid-ids"
        ? (random: Random) => random.uuid()
        : ids === "evt-ids"
          ? (random: Random) => `evt_${random.bytes(12).toString("hex")}`
          : undefined,
    payloadOf: shape === "flat" ? flatPayload : shape === "documented-only" ? documentedPayload : undefined,
  };
}

/** The event's fields beside `type` and `timestamp`, with no `data` object. */
function flatPayload(event: WebhookEvent): Record<string, unknown> {
  return { ...event.data, type: event.type, timestamp: event.timestamp };
}

/**
 * Only what the spec names for evaluation-completed: the evaluation status, the issues (each only its
 * optional commentId) and the metadata; other kinds keep their data.
 */
function documentedPayload(event: WebhookEvent): Record<string, unknown> {
  if (event.type !== "evaluation-completed") return { ...event };
  const issues = (event.data["issues"] as { commentId?: string }[]).map((issue) =>
    issue.commentId === undefined ? {} : { commentId: issue.commentId },
  );
  return {
    type: event.type,
    timestamp: event.timestamp,
    data: { status: event.data["status"], issues, metadata: event.data["metadata"] },
  };
}

/** Builds the state from the options (creates the temporary storage directory). */
export async function createState(options: SimulatorOptions): Promise<SimulatorState> {
  const seed = (options.seed ?? randomInt(2 ** 31)) >>> 0;
  const random = createRandom(seed);
  const profile = resolveProfile(options.profile ?? 0);
  const keyStyle = takes(profile, 17, "sk-keys") ? "sk" : takes(profile, 17, "opaque-keys") ? "opaque" : "pr";
  const credentials = issueCredentials(random, keyStyle);
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
    storageDir: options.storageDir || undefined,
  };
  const uploads = await UploadStore.create(uploadOptions);
  const webhooks = new WebhookDispatcher({
    secrets: webhookSecrets,
    retryDelaysMs: options.webhookRetryDelaysMs ?? [100, 500, 2000, 5000],
    random,
    scheduler,
    ...webhookVariants(profile),
  });
  const webhookUrls = options.webhookUrls ?? [];
  for (const url of webhookUrls) webhooks.addEndpoint(url);
  const windowMs = options.rateLimitWindowMs ?? 60_000;
  const initiationLimit = { "initiation-300": 300, "initiation-100": 100 }[variantOf(profile, 23)];
  return {
    seed,
    profile,
    initiationLimiter:
      initiationLimit === undefined ? undefined : new SlidingWindowLimiter(initiationLimit, windowMs),
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
    promotions: new PromotionStore(random, reference, uploads, promotionVariants(profile)),
    links: new LinkCapture({ random, seed, uploads, importDelayMs: () => delays.linkImportDelayMs }),
    webhooks,
    evaluations: new Evaluations(
      random,
      scheduler,
      webhooks,
      () => delays.evaluationDelayMs,
      () => delays.commentIndexDelayMs,
      {
        finalStatus: takes(profile, 9, "skipped-as-completed")
          ? { evaluated: "completed", skipped: "completed" }
          : takes(profile, 9, "final-succeeded")
            ? { evaluated: "succeeded", skipped: "skipped" }
            : undefined,
        extraEvent: takes(profile, 20, "evaluation-started")
          ? "evaluation-started"
          : takes(profile, 20, "evaluation-summary")
            ? "evaluation-summary"
            : undefined,
      },
    ),
    faults: new FaultRegistry(seed),
    mainLimiter: new SlidingWindowLimiter(options.mainApiLimit ?? 60, windowMs),
    linkLimiter: new SlidingWindowLimiter(options.linkCaptureLimit ?? 10, windowMs),
    now: options.now ?? Date.now,
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
