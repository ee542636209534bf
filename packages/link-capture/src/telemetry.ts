/**
 * The package's OpenTelemetry scope. Nothing here runs unless the user passed a `tracerProvider` or
 * `meterProvider` (then `http.telemetryFor` returns the package's telemetry).
 */
import type { Telemetry } from "@promo-review/errors/telemetry";
import type { HttpClient } from "@promo-review/http";
import { LINK_CAPTURE_VERSION } from "./version.js";

/** This package's telemetry on `http`'s providers, or `undefined` without any (then no span code runs). */
export const telemetryOf = (http: HttpClient): Telemetry | undefined =>
  http.telemetryFor?.({ name: "@promo-review/link-capture", version: LINK_CAPTURE_VERSION });
