/**
 * Link capture (POST /v1/links): a generic URL is screenshotted synchronously (201, may take two
 * minutes, so the request timeout is generous); a design-tool frame or a cloud-drive file is imported
 * asynchronously (202 with a `statusUrl` to poll). One correlation id covers the capture and every
 * poll. The POST is never resent after a failure that may have reached the service (it could have
 * started a capture); a 429 is resent after its `Retry-After`, as it was not processed.
 */
import {
  checkResponse,
  localValidationError,
  type Redactor,
  type ResponseShape,
} from "@promo-review/errors/internal";
import { type ObservedOperation, type Observer, observed } from "@promo-review/errors/observe";
import {
  type CallControl,
  callControl,
  type HttpClient,
  type HttpClientSource,
  type HttpResult,
  httpClientFrom,
  newCorrelationId,
  responseMetadata,
  sendRoute,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import { explainCaptureError } from "./explain.js";
import {
  type DesignFrame,
  type DiscoverOptions,
  discoverFrames,
  type FrameDiscovery,
  frameTooLarge,
} from "./frames.js";
import { linkKind, nodeIdOf, parseLink } from "./link-kind.js";
import { linkOrigin } from "./observation.js";
import { ImportPoll, type PollPacing } from "./poll.js";
import { captureRoute, framesRoute, startImportOperation } from "./routes.js";
import type { CaptureResponse, FileFormat, ImportPollState, WaitOptions } from "./types.js";

/**
 * How to reach the main API, and how patient to be: a ready `http` client (the facade shares one), or
 * `baseUrl` with the flat credentials (`apiKey`, `externalUserId`, `externalUserEmail`) and the
 * connection options of `@promo-review/http` (`fetch`, `retry`, `trustedOrigins`, `hooks`, `logger`,
 * `appInfo`, and a rate `budget`), all unused when `http` is given. What happens is
 * observed through `telemetry`.
 */
export interface LinkCaptureOptions extends HttpClientSource {
  /**
   * What observes every capture, import, wait and frame discovery (and, for a client made here, every
   * request): `openTelemetry({ tracerProvider, meterProvider })` from `@promo-review/opentelemetry`, or
   * any `Observer` of `@promo-review/errors/observe`. Told each operation with the link's kind (never
   * the link), the upload id and the frames found, and each status poll. Default: none.
   */
  telemetry?: Observer | undefined;
  /** The main API's base URL. Needed unless `http` is given. */
  baseUrl?: string;
  /**
   * Further origins that may receive requests and credentials (a deployment that serves `statusUrl`
   * elsewhere). Off by default: a `statusUrl` on another origin is refused with a `ForeignOriginError`.
   */
  trustedOrigins?: readonly string[];
  /** Timeout of the capture request: a generic capture may take two minutes. Default 150 000 ms. */
  captureTimeoutMs?: number;
  /** First pause between status polls. Default 2000 ms ("every few seconds"). */
  pollIntervalMs?: number;
  /** Longest pause between status polls, reached by backing off. Default 10 000 ms. */
  maxPollIntervalMs?: number;
  /** How long an import is polled before a `TimeoutError`. Default 600 000 ms. */
  pollTimeoutMs?: number;
  /** Timeout of one status poll. Default 30 000 ms. */
  pollRequestTimeoutMs?: number;
}

/**
 * Options of one capture. `timeoutMs` replaces `captureTimeoutMs` for the capture request (and the
 * frame discovery it may make); `retry` overrides the client's policy for those requests (`false`: one
 * attempt). An import's status polls keep their own pacing, bounded by `pollTimeoutMs`.
 */
export interface CaptureOptions extends WaitOptions, CallControl {
  /** The frame of a design-tool link (else the link's `node-id`, else `chooseFrame`). */
  designFrameId?: string;
  /**
   * Picks a frame from discovery when a design link names none: return its id (or the frame), or
   * undefined to give up. A frame known to be over about 6 megapixels is refused before the import.
   */
  chooseFrame?: (
    frames: DesignFrame[],
  ) => string | DesignFrame | undefined | Promise<string | DesignFrame | undefined>;
  /** Sent as `X-Correlation-ID` on the capture and every poll; a fresh one when absent. */
  correlationId?: string;
  /** Overrides the client's `pollTimeoutMs` for this import. */
  pollTimeoutMs?: number;
}

/** Link capture. */
export interface LinkCapture {
  /** Captures a link and, for an import, polls until it completes. Returns the upload id and format to use. */
  capture(url: string, options?: CaptureOptions): Promise<CaptureResponse>;
  /** Sends the capture and returns the poll without waiting (a generic capture's poll is already done). */
  startImport(url: string, options?: Omit<CaptureOptions, "onStatus">): Promise<ImportPoll>;
  /** Carries on a poll saved with `poll.toJSON()`; `pollTimeoutMs` sets a new deadline from now. */
  resumePoll(state: ImportPollState, options?: { pollTimeoutMs?: number }): ImportPoll;
  /**
   * Lists the frames of a design file (POST /v1/links/design/frames). It is operation
   * `links.discoverFrames` (inside `links.capture` when a capture asks for it).
   */
  discoverFrames(url: string, options?: DiscoverOptions): Promise<WithResponse<FrameDiscovery>>;
  /** The main-API client in use. */
  http: HttpClient;
}

type CaptureBody = { uploadId: string; statusUrl?: unknown; fileFormat?: unknown; source?: unknown };

/**
 * Checks a capture answer for what the spec states. The 201/202 split is read from the body, not
 * the status (any 2xx is success): with a `statusUrl` it is an import (`uploadId` uuid, `statusUrl` a
 * non-empty string, `fileFormat` and `source` strings when present); without one a finished capture
 * (`uploadId` uuid and `fileFormat`). A breach is `UNEXPECTED_RESPONSE`.
 */
function checkCaptureAnswer(answer: HttpResult<unknown>, redact: Redactor): CaptureBody {
  const context = {
    operation: captureRoute.name,
    correlationId: answer.correlationId,
    status: answer.status,
    redact,
  };
  const imported =
    typeof answer.data === "object" &&
    answer.data !== null &&
    (answer.data as CaptureBody).statusUrl !== undefined;
  const shape: ResponseShape = imported
    ? ({
        uploadId: "uuid",
        statusUrl: "nonEmptyString",
        fileFormat: { rule: "nonEmptyString", optional: true },
        source: { rule: "string", optional: true },
      } as const)
    : ({
        uploadId: "uuid",
        fileFormat: "nonEmptyString",
        source: { rule: "string", optional: true },
      } as const);
  return checkResponse(answer.data, shape, context) as CaptureBody;
}

/** The first pause between status polls, when `pollIntervalMs` is not given ("every few seconds"). */
const DEFAULT_POLL_INTERVAL_MS = 2000;

/**
 * What every capture of one client shares: its HTTP client, its options, the pacing of its polls and
 * its `telemetry` observer.
 */
interface Settings {
  http: HttpClient;
  options: LinkCaptureOptions;
  pacing: PollPacing;
  observer: Observer | undefined;
}

/** Runs `work` as operation `name` on the client's observer, under `parent`. */
const operation = <T>(
  { http, observer }: Settings,
  name: string,
  parent: ObservedOperation | undefined,
  work: (operation: ObservedOperation | undefined) => Promise<T>,
) => observed(observer, { name, ...linkOrigin(http), parent }, work);

/** Frame discovery as operation `links.discoverFrames` under `parent`, with how many frames it found. */
const discover = (
  settings: Settings,
  url: string,
  o: DiscoverOptions,
  parent: ObservedOperation | undefined,
) =>
  operation(settings, framesRoute.name, parent, async (op) => {
    // Checked inside the operation: a bad link ends it as a local VALIDATION_ERROR, with nothing sent.
    parseLink(url);
    const found = await discoverFrames(settings.http, url, o, op);
    if (op) settings.observer?.operationDetailed?.(op, { "link.frames": found.frames.length });
    return found;
  });

/** The frame to send for a design link, found from the options, the link, or discovery. */
async function frameFor(
  settings: Settings,
  url: string,
  link: URL,
  o: CaptureOptions,
  correlationId: string,
  parent: ObservedOperation | undefined,
): Promise<string | undefined> {
  if (o.designFrameId !== undefined || nodeIdOf(link) !== undefined) return o.designFrameId;
  if (o.chooseFrame) {
    const { frames } = await discover(
      settings,
      url,
      { ...callControl(o), correlationId, signal: o.signal },
      parent,
    );
    const chosen = await o.chooseFrame(frames);
    const frame = typeof chosen === "string" ? frames.find((f) => f.id === chosen) : chosen;
    if (frame && !frame.importable) throw frameTooLarge(frame);
    const id = typeof chosen === "string" ? chosen : chosen?.id;
    if (id !== undefined) return id;
  }
  throw localValidationError(
    [
      {
        field: "designFrameId",
        message:
          "a design-tool link needs a frame: pass designFrameId, use a link with a node-id parameter, or pass chooseFrame (frame discovery)",
      },
    ],
    "No design frame identified",
  );
}

/**
 * Captures a link and returns its poll: an import's, to wait for, or a generic capture's, already
 * done (the screenshot is ready). The requests belong to operation `op`; with `polls`, so do the
 * poll's (capture waits within its own operation).
 */
async function start(
  settings: Settings,
  url: string,
  o: CaptureOptions = {},
  op?: ObservedOperation,
  polls?: boolean,
): Promise<ImportPoll> {
  const { http, options, observer } = settings;
  const link = parseLink(url);
  const kind = linkKind(link);
  // The kind, never the link: a shared drive link may carry its own access token.
  if (op) observer?.operationDetailed?.(op, { "link.kind": kind });
  const design = kind === "design";
  const correlationId = o.correlationId ?? newCorrelationId();
  const designFrameId = design ? await frameFor(settings, url, link, o, correlationId, op) : o.designFrameId;
  let answer: HttpResult<unknown>;
  try {
    answer = await sendRoute(http, captureRoute, captureRoute.path, {
      parent: op,
      // The link is sent exactly as given: its node-id, if any, is the service's to read.
      json: { url, designFrameId }, // JSON.stringify leaves out an undefined designFrameId
      correlationId,
      timeoutMs: options.captureTimeoutMs ?? 150_000,
      ...callControl(o),
      signal: o.signal,
    });
  } catch (error) {
    throw explainCaptureError(error, url);
  }
  const data = checkCaptureAnswer(answer, http.redact);
  const fileFormat = typeof data.fileFormat === "string" ? (data.fileFormat as FileFormat) : undefined;
  const source = typeof data.source === "string" ? data.source : undefined;
  const state: ImportPollState = {
    statusUrl: typeof data.statusUrl === "string" ? data.statusUrl : "",
    uploadId: data.uploadId,
    fileFormat,
    source,
    design,
    attempts: 0,
    deadline: Date.now() + (o.pollTimeoutMs ?? options.pollTimeoutMs ?? 600_000),
    correlationId: answer.correlationId,
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  };
  o.onStatus?.({
    type: "accepted",
    uploadId: data.uploadId,
    // An event the caller sees: no `statusUrl` key at all for a generic capture (inspect, `in`).
    ...(state.statusUrl ? { statusUrl: state.statusUrl } : {}),
    correlationId: answer.correlationId,
  });
  if (!state.statusUrl) {
    // A generic capture: the screenshot is ready, and always an image.
    const result = {
      uploadId: data.uploadId,
      fileFormat: fileFormat ?? "image",
      // A result the caller sees: no `source` key at all when the service named none (inspect, `in`).
      ...(source ? { source } : {}),
      correlationId: answer.correlationId,
    };
    state.result = withResponse(result, responseMetadata(answer, http.redact));
  }
  if (op) observer?.operationDetailed?.(op, { uploadId: data.uploadId });
  return new ImportPoll(http, state, settings.pacing, { observer, parent: polls ? op : undefined });
}

/** Creates link capture over the main API. Nothing is sent until a method is called. */
export function createLinkCapture(options: LinkCaptureOptions): LinkCapture {
  const http = httpClientFrom(options, {
    client: "createLinkCapture",
    baseUrlField: "baseUrl",
    baseUrl: options.baseUrl,
  });
  const settings: Settings = {
    http,
    options,
    observer: options.telemetry,
    pacing: {
      maxIntervalMs: Math.max(
        options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
        options.maxPollIntervalMs ?? 10_000,
      ),
      factor: 1.5,
      requestTimeoutMs: options.pollRequestTimeoutMs ?? 30_000,
    },
  };

  return {
    http,
    capture: (url, o = {}) =>
      operation(settings, captureRoute.name, o.parent, async (op) => {
        const poll = await start(settings, url, o, op, true);
        if (poll.result) {
          o.onStatus?.({ type: "completed", result: poll.result });
          return poll.result as CaptureResponse;
        }
        return poll.wait(o);
      }),
    startImport: (url, o = {}) =>
      operation(settings, startImportOperation.name, o.parent, (op) => start(settings, url, o, op)),
    resumePoll(state, o = {}) {
      const deadline = o.pollTimeoutMs === undefined ? state.deadline : Date.now() + o.pollTimeoutMs;
      return new ImportPoll(http, { ...state, deadline }, settings.pacing, { observer: settings.observer });
    },
    // A bad link is a rejected promise like any other failure (never a synchronous throw), inside the operation.
    discoverFrames: (url, o = {}) => discover(settings, url, o, o.parent),
  };
}
