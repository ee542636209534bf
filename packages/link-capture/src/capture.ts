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
import { type TracedSpan, traced } from "@promo-review/errors/telemetry";
import {
  type CallControl,
  callControl,
  type HttpClient,
  type HttpClientSource,
  type HttpResult,
  httpClientFrom,
  newCorrelationId,
  responseMetadata,
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
import { ImportPoll, type PollPacing } from "./poll.js";
import { telemetryOf } from "./telemetry.js";
import type { CaptureResponse, FileFormat, ImportPollState, WaitOptions } from "./types.js";

/**
 * How to reach the main API, and how patient to be: a ready `http` client (the facade shares one), or
 * `baseUrl` with the flat credentials (`apiKey`, `externalUserId`, `externalUserEmail`) and the
 * connection options of `@promo-review/http` (`fetch`, `retry`, `trustedOrigins`, `hooks`, `logger`,
 * `appInfo`, and a rate `budget`), all unused when `http` is given.
 */
export interface LinkCaptureOptions extends HttpClientSource {
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
   * Lists the frames of a design file (POST /v1/links/design/frames). With a `tracerProvider` it is
   * operation `links.discoverFrames` (inside `links.capture` when a capture asks for it).
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
function checkCaptureAnswer(
  answer: { data: unknown; correlationId: string; status: number },
  redact: Redactor,
): CaptureBody {
  const context = {
    operation: "links.capture",
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

/** What every capture of one client shares: its HTTP client, its options and the pacing of its polls. */
interface Settings {
  http: HttpClient;
  options: LinkCaptureOptions;
  pacing: PollPacing;
}

/** Frame discovery as operation `links.discoverFrames` under `parent`, with how many frames it found. */
const discover = (http: HttpClient, url: string, o: DiscoverOptions, parent: TracedSpan | undefined) =>
  traced(
    telemetryOf(http),
    "links.discoverFrames",
    {},
    async (span) => {
      // Checked inside the span: a bad link ends it as a local VALIDATION_ERROR, with nothing sent.
      parseLink(url);
      const found = await discoverFrames(http, url, o, span);
      span?.set({ "promo_review.link.frames": found.frames.length });
      return found;
    },
    parent,
  );

/** The frame to send for a design link, found from the options, the link, or discovery. */
async function frameFor(
  http: HttpClient,
  url: string,
  link: URL,
  o: CaptureOptions,
  correlationId: string,
  span: TracedSpan | undefined,
): Promise<string | undefined> {
  if (o.designFrameId !== undefined || nodeIdOf(link) !== undefined) return o.designFrameId;
  if (o.chooseFrame) {
    const { frames } = await discover(
      http,
      url,
      { ...callControl(o), correlationId, signal: o.signal },
      span,
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
 * done (the screenshot is ready). The requests' CLIENT spans are children of `span`; with `polls`, so
 * are the poll's (capture waits within its own operation).
 */
async function start(
  settings: Settings,
  url: string,
  o: CaptureOptions = {},
  span?: TracedSpan,
  polls?: boolean,
): Promise<ImportPoll> {
  const { http, options } = settings;
  const link = parseLink(url);
  const kind = linkKind(link);
  // The kind, never the link: a shared drive link may carry its own access token.
  span?.set({ "promo_review.link.kind": kind });
  const design = kind === "design";
  const correlationId = o.correlationId ?? newCorrelationId();
  const designFrameId = design ? await frameFor(http, url, link, o, correlationId, span) : o.designFrameId;
  let answer: HttpResult<unknown>;
  try {
    answer = await http.request<unknown>("/v1/links", {
      operation: span,
      urlTemplate: "/v1/links",
      method: "POST",
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
  span?.set({ "promo_review.upload_id": data.uploadId });
  return new ImportPoll(http, state, settings.pacing, polls ? span : undefined);
}

/** Creates link capture over the main API. Nothing is sent until a method is called. */
export function createLinkCapture(options: LinkCaptureOptions): LinkCapture {
  const http = httpClientFrom(options, {
    client: "createLinkCapture",
    baseUrlField: "baseUrl",
    baseUrl: options.baseUrl,
  });
  const telemetry = telemetryOf(http);
  const settings: Settings = {
    http,
    options,
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
      traced(
        telemetry,
        "links.capture",
        {},
        async (span) => {
          const poll = await start(settings, url, o, span, true);
          if (poll.result) {
            o.onStatus?.({ type: "completed", result: poll.result });
            return poll.result as CaptureResponse;
          }
          return poll.wait(o);
        },
        o.parentSpan,
      ),
    startImport: (url, o) =>
      traced(telemetry, "links.startImport", {}, (span) => start(settings, url, o, span), o?.parentSpan),
    resumePoll(state, o = {}) {
      const deadline = o.pollTimeoutMs === undefined ? state.deadline : Date.now() + o.pollTimeoutMs;
      return new ImportPoll(http, { ...state, deadline }, settings.pacing);
    },
    // A bad link is a rejected promise like any other failure (never a synchronous throw), inside the span.
    discoverFrames: (url, o) => discover(http, url, o ?? {}, o?.parentSpan),
  };
}
