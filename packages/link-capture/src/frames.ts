/**
 * Design-tool frames: discovery (POST /v1/links/design/frames) and the size limit. Frames over about
 * 6 megapixels cannot be imported, so discovery marks each frame, and a frame chosen from discovery
 * that is too large is refused before the import is requested.
 */
import type { ValidationError } from "@promo-review/errors";
import { localValidationError } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import {
  type CallControl,
  callControl,
  type HttpClient,
  responseMetadata,
  sendRoute,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import { framesRoute } from "./routes.js";

/** The largest frame the service imports: "about 6 megapixels". */
export const MAX_FRAME_PIXELS = 6_000_000;

/** A frame of a design file, as discovery lists it (unknown fields kept). */
export interface DesignFrame {
  id: string;
  name?: string;
  width?: number;
  height?: number;
  /** `width × height`, when both are known. */
  pixels?: number;
  /** False when the frame is known to be over {@link MAX_FRAME_PIXELS}. */
  importable: boolean;
  [field: string]: unknown;
}

/** What frame discovery returns. */
export interface FrameDiscovery {
  frames: DesignFrame[];
  correlationId: string;
}

/** Adds `pixels` and `importable` to a frame as the service listed it. */
export function describeFrame(raw: Record<string, unknown>): DesignFrame {
  const { width, height } = raw;
  const pixels = typeof width === "number" && typeof height === "number" ? width * height : undefined;
  return {
    ...raw,
    id: String(raw["id"]),
    // A frame the caller sees and may print: no `pixels` key at all when the size is unknown.
    ...(pixels === undefined ? {} : { pixels }),
    importable: pixels === undefined || pixels <= MAX_FRAME_PIXELS,
  };
}

/** The local refusal of a frame known to be too large. */
export function frameTooLarge(frame: DesignFrame): ValidationError {
  return localValidationError(
    [
      {
        field: "designFrameId",
        message: `frame ${frame.id} is ${frame.pixels} pixels; frames over about 6 megapixels cannot be imported`,
        constraint: { name: "max_frame_pixels", limit: MAX_FRAME_PIXELS, actual: frame.pixels ?? 0 },
      },
    ],
    `Design frame ${frame.id}${frame.name ? ` ("${frame.name}")` : ""} is too large to import`,
  );
}

/** Options of frame discovery: `signal`, `correlationId`, and the call's `timeoutMs` and `retry`. */
export interface DiscoverOptions extends CallControl {
  signal?: AbortSignal | undefined;
  correlationId?: string | undefined;
  /**
   * The operation `links.discoverFrames` runs inside, as the client's `telemetry` observer started it.
   * Default: none (an OpenTelemetry observer then uses the caller's active span).
   */
  parent?: ObservedOperation | undefined;
}

/**
 * Lists the frames of a design file, with the request's non-enumerable `$response`. Discovery reads
 * and changes nothing, so it is retried like a GET.
 */
export async function discoverFrames(
  http: HttpClient,
  url: string,
  options: DiscoverOptions = {},
  parent?: ObservedOperation,
): Promise<WithResponse<FrameDiscovery>> {
  const answer = await sendRoute<{ frames?: unknown }>(http, framesRoute, framesRoute.path, {
    json: { url },
    parent,
    ...callControl(options),
    signal: options.signal,
    correlationId: options.correlationId || undefined, // an empty id is no id: http makes one
  });
  const { data, correlationId } = answer;
  const frames = Array.isArray(data?.frames) ? (data.frames as Record<string, unknown>[]) : [];
  return withResponse(
    { frames: frames.map(describeFrame), correlationId },
    responseMetadata(answer, http.redact),
  );
}
