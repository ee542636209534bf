import { TimeoutError } from "@promo-review/errors";
import type { Redactor } from "@promo-review/errors/internal";
import { errorFromTransport, isUuid, localValidationError } from "@promo-review/errors/internal";
import {
  type ObservedOperation,
  type ObservedValue,
  type Observer,
  observed,
} from "@promo-review/errors/observe";
import {
  type CallControl,
  callControl,
  type Deadline,
  poll,
  sleep,
  startableDeadline,
  type WithResponse,
} from "@promo-review/http";
import type { CaptureResponse, LinkCapture } from "@promo-review/link-capture";
import type {
  CreatePromotionRequest,
  CreatePromotionResult,
  Decision,
  EvaluationRecord,
  NewVersionRequest,
  NewVersionResult,
  OfLatest,
  PromotionsClient,
  SubmitRequest,
  SubmitResult,
} from "@promo-review/promotions-core";
import { validateId } from "@promo-review/promotions-core";
import {
  fileDetailsOf,
  formatOf,
  type Uploader,
  type UploadProgress,
  type UploadResponse,
  type UploadSource,
} from "@promo-review/upload-chunker";
import type { EvaluationCompletedEvent, WebhookVerifier } from "@promo-review/webhook-verify";
import { SDK_VERSION } from "./version.js";

/**
 * `T` without the keys `K`, keeping its declared fields' modifiers and its openness to extra fields
 * (plain `Omit` over a type with an index signature would drop every declared field).
 */
type Without<T, K extends PropertyKey> = {
  [P in keyof T as string extends P ? never : P extends K ? never : P]: T[P];
} & { [field: string]: unknown };

/** Creation fields other than the content, which each flow supplies. */
export type PromotionFields = Without<
  CreatePromotionRequest,
  "uploadIds" | "content" | "fileFormat" | "variations"
>;

/** Version fields other than the content. */
export type VersionFields = Without<NewVersionRequest, "uploadIds" | "content" | "fileFormat">;

/**
 * What a flow that uploads a file needs to know about it. `timeoutMs` and `retry` apply to every
 * request of the flow (each step's, as that step's per-call controls).
 */
export interface FileOptions extends CallControl {
  /** The file's name. Default: the source's `name` when it is a `File`. */
  fileName?: string | undefined;
  /**
   * The MIME type; it decides the promotion's `fileFormat` (see upload-chunker's `formatOf`).
   * Default: the source's `type` when it is a `Blob` or `File` that has one.
   */
  contentType?: string | undefined;
  /** The declared size, for a stream whose length is not known otherwise. */
  size?: number | undefined;
  onProgress?: ((progress: UploadProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** How long, and how, to wait for an evaluation's result. */
export interface EvaluateAndWaitOptions {
  /** The version to evaluate; default: the latest, read from the promotion. */
  versionId?: string | undefined;
  /** Give up after this long (default 10 minutes). */
  timeoutMs?: number | undefined;
  /**
   * Start polling the evaluation after this long without a webhook (default: 60 s when a webhook
   * secret is configured, at once otherwise). Each poll spends the shared main-API budget.
   */
  pollAfterMs?: number | undefined;
  /** First pause between polls (default 2 s, doubling to 30 s). */
  pollIntervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** An evaluation's result, and how it arrived. */
export interface EvaluationOutcome {
  evaluationId: string;
  promotionId: string;
  versionId: string;
  status: string;
  issues: EvaluationCompletedEvent["data"]["issues"];
  /** The creation metadata the webhook echoes (absent when the result came by polling). */
  metadata?: Record<string, string> | undefined;
  /** `webhook` when a verified delivery brought it, `poll` when the fallback did. */
  via: "webhook" | "poll";
  /** The correlation id of the evaluate call. */
  correlationId: string;
}

/** The end-to-end flows users otherwise write by hand. */
export interface Flows {
  /** Uploads a file (a Blob, bytes, a stream through `fromStream` from `@promo-review/sdk/streams`; a path via `@promo-review/sdk/node`), waits for it, and creates a promotion with the matching `fileFormat`. */
  createFromFile(
    source: UploadSource,
    options: FileOptions & { promotion: PromotionFields },
  ): Promise<{ promotion: WithResponse<CreatePromotionResult>; upload: UploadResponse }>;
  /** Captures a link (polling an import to its end) and creates a promotion with the capture's `fileFormat`. */
  createFromLink(
    url: string,
    options: {
      promotion: PromotionFields;
      designFrameId?: string | undefined;
      signal?: AbortSignal | undefined;
    } & CallControl,
  ): Promise<{ promotion: WithResponse<CreatePromotionResult>; capture: CaptureResponse }>;
  /** Creates a promotion from inline text or HTML (`fileFormat` text). */
  createFromText(
    content: string,
    options: { promotion: PromotionFields; signal?: AbortSignal | undefined } & CallControl,
  ): Promise<WithResponse<CreatePromotionResult>>;
  /** Uploads a file and adds it as a new version of a promotion. */
  addVersionFromFile(
    promotionId: string,
    source: UploadSource,
    options: FileOptions & { version?: VersionFields },
  ): Promise<{ version: WithResponse<NewVersionResult>; upload: UploadResponse }>;
  /** Submits the latest version (read from the promotion, wherever it was made) and reads its decision. */
  submitLatestAndDecide(
    promotionId: string,
    options?: { body?: SubmitRequest | undefined; signal?: AbortSignal | undefined } & CallControl,
  ): Promise<{ submitted: WithResponse<SubmitResult & OfLatest>; decision: WithResponse<Decision> }>;
  /** Starts an evaluation and waits for its result: from the webhook receiver, polling only as a fallback. */
  evaluateAndWait(promotionId: string, options?: EvaluateAndWaitOptions): Promise<EvaluationOutcome>;
}

/** What the flows are built from. */
export interface FlowParts {
  uploads: Omit<Uploader, "http">;
  links: Omit<LinkCapture, "http">;
  promotions: Omit<PromotionsClient, "reference" | "http">;
  webhooks: WebhookVerifier;
  /** Whether a webhook secret is configured, so results can arrive by webhook. */
  hasWebhooks: boolean;
  /** The facade's observer (its `telemetry` option): each flow is an operation on it. */
  telemetry?: Observer | undefined;
  /** The client's redactor, which the observer passes every string it keeps through. */
  redact: Redactor;
}

function fileFormatOf(source: UploadSource, options: FileOptions) {
  const { contentType } = fileDetailsOf(source, options);
  if (contentType === undefined) {
    throw localValidationError([
      {
        field: "contentType",
        message: "is required: pass contentType, or upload a Blob or File that has a type",
      },
    ]);
  }
  const format = formatOf(contentType);
  if (!format) {
    throw localValidationError([
      {
        field: "contentType",
        message: `"${contentType}" is not a supported file type (pdf, image/*, video/*, audio/*, documents)`,
      },
    ]);
  }
  return format;
}

/** The upload step's options, under the flow's operation. */
function uploadOptions(options: FileOptions, operation: ObservedOperation | undefined) {
  return {
    ...callControl(options),
    parent: operation,
    fileName: options.fileName,
    contentType: options.contentType,
    size: options.size,
    onProgress: options.onProgress,
    signal: options.signal,
    waitForCompletion: true,
  };
}

/**
 * A step's options: the flow's signal and per-call controls, and the flow's operation as the step's
 * parent (handed on explicitly: it works where no context manager carries the active span, as in Workers).
 */
const stepOf = (
  options: { signal?: AbortSignal | undefined } & CallControl,
  operation?: ObservedOperation,
) => ({
  ...callControl(options),
  signal: options.signal,
  parent: operation,
});

/**
 * The `promotionId` and `versionId` details of `evaluateAndWait`, each only when it is a uuid (ids
 * are not secrets, but a value passed by mistake never reaches an observer). The other flows' steps
 * carry their own ids.
 */
const idDetails = (promotionId: unknown, versionId?: unknown): Record<string, ObservedValue> => ({
  promotionId: isUuid(promotionId) ? promotionId : undefined,
  versionId: isUuid(versionId) ? versionId : undefined,
});

const SOURCE = { name: "@promo-review/sdk", version: SDK_VERSION };

/** A flow's work: the flow's arguments, after the operation it runs as (its steps' parent). */
type FlowWork<F> = F extends (...args: infer A) => Promise<infer R>
  ? (operation: ObservedOperation | undefined, ...args: A) => Promise<R>
  : never;

/** Builds the flows over the client's parts. Each flow is an operation named for its method. */
export function createFlows(parts: FlowParts): Flows {
  const { uploads, links, promotions, telemetry, redact } = parts;
  const work: { [Name in keyof Flows]: FlowWork<Flows[Name]> } = {
    createFromFile: async (operation, source, options) => {
      // The type is checked before any byte moves: an unsupported file fails here, not after uploading.
      const fileFormat = fileFormatOf(source, options);
      const upload = await uploads.upload(source, uploadOptions(options, operation));
      const promotion = await promotions.create(
        { ...options.promotion, fileFormat, uploadIds: [upload.uploadId] },
        stepOf(options, operation),
      );
      return { promotion, upload };
    },

    createFromLink: async (operation, url, options) => {
      const capture = await links.capture(url, {
        designFrameId: options.designFrameId || undefined, // an empty id is no frame
        ...stepOf(options, operation),
      });
      const promotion = await promotions.create(
        {
          ...options.promotion,
          // The capture's format is the service's word; validation still refuses one it does not know.
          fileFormat: capture.fileFormat,
          uploadIds: [capture.uploadId],
        },
        stepOf(options, operation),
      );
      return { promotion, capture };
    },

    createFromText: (operation, content, options) =>
      promotions.create({ ...options.promotion, fileFormat: "text", content }, stepOf(options, operation)),

    addVersionFromFile: async (operation, promotionId, source, options) => {
      // Checked before any byte moves: a bad id fails here, not after uploading the file.
      validateId(promotionId, "promotionId");
      const fileFormat = fileFormatOf(source, options);
      const upload = await uploads.upload(source, uploadOptions(options, operation));
      const version = await promotions.createVersion(
        promotionId,
        { ...options.version, fileFormat, uploadIds: [upload.uploadId] },
        stepOf(options, operation),
      );
      return { version, upload };
    },

    submitLatestAndDecide: async (operation, promotionId, options = {}) => {
      const submitted = await promotions.submitLatest(promotionId, options.body, stepOf(options, operation));
      const decision = await promotions.decision(
        promotionId,
        submitted.versionId,
        stepOf(options, operation),
      );
      return { submitted, decision };
    },

    evaluateAndWait: (operation, promotionId, options = {}) =>
      evaluateAndWait(parts, promotionId, options, operation),
  };
  // Each flow runs as the operation its method names (under the caller's active span, for a tracing
  // observer); its steps are its children.
  const flows: Record<string, unknown> = {};
  for (const [name, flow] of Object.entries(work)) {
    flows[name] = (...args: unknown[]) =>
      observed(telemetry, { name, source: SOURCE, redact }, (operation) =>
        (flow as (...all: unknown[]) => Promise<unknown>)(operation, ...args),
      );
  }
  return flows as unknown as Flows;
}

type Started = { evaluationId: string; correlationId: string };
type Delivered = EvaluationCompletedEvent["data"] & { status: string };

/** The outcome of an evaluation, from a verified webhook or a read. */
function outcomeOf(
  started: Started,
  ids: { promotionId: string; versionId: string },
  data: Delivered | EvaluationRecord,
  via: "webhook" | "poll",
): EvaluationOutcome {
  return {
    evaluationId: started.evaluationId,
    ...ids,
    status: data.status,
    // A read and a webhook describe the same evaluation, so their issues have the same shape.
    issues: (data.issues ?? []) as EvaluationOutcome["issues"],
    // An outcome the caller sees and may print: no `metadata` key at all when the service sent none.
    ...(data.metadata ? { metadata: data.metadata as Record<string, string> } : {}),
    via,
    correlationId: started.correlationId,
  };
}

/**
 * Listens for the version's `evaluation-completed` deliveries before the evaluation is started, keeping
 * them until its id is known: a webhook that arrives before the trigger's answer is not missed.
 */
function listenForResult(parts: FlowParts, ids: { promotionId: string; versionId: string }) {
  const seen: EvaluationCompletedEvent[] = [];
  let deliver: ((event: EvaluationCompletedEvent) => void) | undefined;
  const listener = (event: EvaluationCompletedEvent) => {
    if (event.data.versionId !== ids.versionId) return;
    seen.push(event);
    deliver?.(event);
  };
  if (parts.hasWebhooks) parts.webhooks.on("evaluation-completed", listener);
  return {
    /** Resolves with the first delivery naming the evaluation (never rejects). */
    result: (started: Started) =>
      new Promise<EvaluationOutcome>((resolve) => {
        const match = (event: EvaluationCompletedEvent) => {
          const { status } = event.data;
          // A delivery without a status (webhook-verify warns) cannot end the wait; the poll fallback does.
          if (event.data.evaluationId === started.evaluationId && status !== undefined)
            resolve(outcomeOf(started, ids, { ...event.data, status }, "webhook"));
        };
        for (const event of seen) match(event);
        deliver = match;
      }),
    stop: () => {
      if (parts.hasWebhooks) parts.webhooks.off("evaluation-completed", listener);
    },
  };
}

/**
 * Reads the evaluation, after `pollAfterMs`, until it is no longer `processing`. Each read is a
 * `promotions.evaluation` operation under `operation`, and told to the observer as a poll of it.
 */
async function pollForResult(
  parts: FlowParts,
  ids: { promotionId: string; versionId: string },
  started: Started,
  options: EvaluateAndWaitOptions & { signal: AbortSignal },
  operation: ObservedOperation | undefined,
): Promise<EvaluationOutcome> {
  const { signal } = options;
  await sleep(options.pollAfterMs ?? (parts.hasWebhooks ? 60_000 : 0), signal);
  const initialMs = options.pollIntervalMs ?? 2_000;
  let attempt = 0;
  return poll<EvaluationOutcome>(
    async () => {
      const record = await parts.promotions.evaluation(ids.promotionId, ids.versionId, started.evaluationId, {
        signal,
        correlationId: started.correlationId,
        parent: operation,
      });
      parts.telemetry?.evaluationPolled?.({ parent: operation, attempt: ++attempt, status: record.status });
      if (record.status === "processing") return { done: false };
      return { done: true, value: outcomeOf(started, ids, record, "poll") };
    },
    // Full jitter, never under half the first interval: readers of one evaluation spread out.
    { signal, backoff: { initialMs, maxMs: 30_000, jitter: "full", minMs: initialMs / 2 } },
  );
}

/** Rejects once `deadline` ends: an `AbortError` when the caller aborted, else a `TimeoutError`. */
function endOf(deadline: Deadline, started: Started, options: EvaluateAndWaitOptions, timeoutMs: number) {
  return new Promise<never>((_, reject) => {
    const end = () => {
      if (options.signal?.aborted) {
        reject(errorFromTransport(options.signal.reason, { aborted: true, sent: true }));
        return;
      }
      reject(
        new TimeoutError({
          code: "TIMEOUT",
          message: `No result for evaluation ${started.evaluationId} after ${Math.round(timeoutMs / 1000)} s; it may still finish (the webhook will say)`,
          correlationId: started.correlationId,
          mayHaveReachedServer: true,
        }),
      );
    };
    if (deadline.signal.aborted) end();
    else deadline.signal.addEventListener("abort", end, { once: true });
  });
}

/**
 * Evaluate, then wait: for the webhook, and after `pollAfterMs` without one by polling too (every poll
 * spends the budget). One deadline, started once the evaluation is, covers the whole wait; the caller's
 * signal ends it too.
 */
async function evaluateAndWait(
  parts: FlowParts,
  promotionId: string,
  options: EvaluateAndWaitOptions,
  operation: ObservedOperation | undefined,
): Promise<EvaluationOutcome> {
  // Only `undefined` means "the latest version": any other value (null from JavaScript, a typo) is
  // refused here, before a request reads the latest version in its place.
  const detailed = (details: Record<string, ObservedValue>) =>
    operation && parts.telemetry?.operationDetailed?.(operation, details);
  detailed(idDetails(promotionId, options.versionId));
  if (options.versionId !== undefined) validateId(options.versionId, "versionId");
  const step = { signal: options.signal, parent: operation };
  const versionId = options.versionId ?? (await parts.promotions.get(promotionId, step)).latestVersionId;
  detailed(idDetails(promotionId, versionId));
  const ids = { promotionId, versionId };
  const timeoutMs = options.timeoutMs ?? 600_000;
  // Aborted by the caller, by the deadline, or once the wait is over (the poller then stops).
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const deadline = startableDeadline(timeoutMs, stop.signal);
  const webhook = listenForResult(parts, ids);
  try {
    const started = await parts.promotions.evaluate(promotionId, versionId, step);
    detailed({ evaluationId: started.evaluationId });
    deadline.start();
    const ended = endOf(deadline, started, options, timeoutMs);
    const byPolling = pollForResult(parts, ids, started, { ...options, signal: deadline.signal }, operation);
    // The poller's own abort (when the webhook wins) must not surface as an unhandled rejection.
    byPolling.catch(() => {});
    const outcome = await Promise.race([ended, webhook.result(started), byPolling]);
    detailed({ "evaluation.via": outcome.via, "evaluation.status": outcome.status });
    return outcome;
  } finally {
    deadline.clear();
    stop.abort();
    options.signal?.removeEventListener("abort", onOuterAbort);
    webhook.stop();
  }
}
