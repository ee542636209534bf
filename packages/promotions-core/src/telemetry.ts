/**
 * The package's OpenTelemetry scope, and the attributes its operation spans carry. Nothing here runs
 * unless the user passed a `tracerProvider` or `meterProvider` (then `http.telemetryFor` returns one).
 */
import { isUuid } from "@promo-review/errors/internal";
import type { OtelAttributes, Telemetry } from "@promo-review/errors/telemetry";
import type { HttpClient } from "@promo-review/http";
import { PROMOTIONS_CORE_VERSION } from "./version.js";

/** This package's telemetry on `http`'s providers, or `undefined` without any (then no span code runs). */
export const telemetryOf = (http: HttpClient): Telemetry | undefined =>
  http.telemetryFor?.({ name: "@promo-review/promotions-core", version: PROMOTIONS_CORE_VERSION });

/**
 * `promo_review.promotion_id` and `promo_review.version_id` (ids are not secrets), each only when it is
 * a uuid: a value a caller passed by mistake (a key pasted into the wrong argument) never reaches a span.
 */
export const idAttributes = (promotionId?: unknown, versionId?: unknown): OtelAttributes => ({
  "promo_review.promotion_id": uuidOrNone(promotionId),
  "promo_review.version_id": uuidOrNone(versionId),
});

/** `value` when it is a uuid, else `undefined` (the attribute is then left out). */
export const uuidOrNone = (value: unknown): string | undefined => (isUuid(value) ? value : undefined);

/** `/v1/promotions`, the spec's paths as templates (the CLIENT span's name and `url.template`). */
export const PROMOTIONS_TEMPLATE = "/v1/promotions";
/** `/v1/promotions/{promotionId}`. */
export const PROMOTION_TEMPLATE = `${PROMOTIONS_TEMPLATE}/{promotionId}`;
/** `/v1/promotions/{promotionId}/versions/{versionId}`. */
export const VERSION_TEMPLATE = `${PROMOTION_TEMPLATE}/versions/{versionId}`;
