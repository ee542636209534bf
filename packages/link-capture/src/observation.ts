/**
 * Who link capture's observations come from: this package, redacting as its client does. What it
 * publishes (the operations `links.capture`, `links.startImport`, `links.wait`, `links.discoverFrames`
 * with their details, each status poll) goes to the client's `telemetry` observer; without one no
 * observation code runs.
 */
import type { ObservationOrigin } from "@promo-review/errors/observe";
import type { HttpClient } from "@promo-review/http";
import { LINK_CAPTURE_VERSION } from "./version.js";

/** The origin of every operation link capture publishes on `http`. */
export const linkOrigin = (http: HttpClient): ObservationOrigin => ({
  source: { name: "@promo-review/link-capture", version: LINK_CAPTURE_VERSION },
  redact: http.redact,
});
