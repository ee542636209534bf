/**
 * The package's OpenTelemetry scope, the attributes its operation spans carry, and the spec's paths as
 * templates. No span code runs unless the user passed a `tracerProvider` or `meterProvider` (then
 * `http.telemetryFor` returns the package's telemetry).
 */
import { isUuid } from "@promo-review/errors/internal";
import type { OtelAttributes, Telemetry } from "@promo-review/errors/telemetry";
import type { HttpClient } from "@promo-review/http";
import { PROMOTIONS_CORE_VERSION } from "./version.js";

/** This package's telemetry on `http`'s providers, or `undefined` without any (then no span code runs). */
export const telemetryOf = (http: HttpClient): Telemetry | undefined =>
  http.telemetryFor?.({ name: "@promo-review/promotions-core", version: PROMOTIONS_CORE_VERSION });

/** The ids an operation is given, or its result names. */
export interface Ids {
  promotionId?: string | undefined;
  versionId?: string | undefined;
  evaluationId?: string | undefined;
  commentId?: string | undefined;
}

const ID = /^(promotion|version|evaluation|comment)Id$/;

/**
 * `promo_review.promotion_id`, `promo_review.version_id`, `promo_review.evaluation_id` and
 * `promo_review.comment_id` of `ids` (ids are not secrets), each only when it is a uuid: a value passed
 * by mistake (a key pasted into the wrong argument) never reaches a span.
 */
export function idAttributes(ids: object): OtelAttributes {
  const attributes: OtelAttributes = {};
  for (const [key, value] of Object.entries(ids)) {
    const kind = ID.exec(key)?.[1];
    if (kind && isUuid(value)) attributes[`promo_review.${kind}_id`] = value;
  }
  return attributes;
}

/** `/v1/promotions`: the spec's paths are the CLIENT spans' names and `url.template`. */
export const PROMOTIONS = "/v1/promotions";
/** `/v1/promotions/{promotionId}`. */
export const PROMOTION = `${PROMOTIONS}/{promotionId}`;
/** `/v1/promotions/{promotionId}/versions/{versionId}`. */
export const VERSION = `${PROMOTION}/versions/{versionId}`;
/** Where an evaluation is read back by default (not shown in the spec; docs/gaps.md). */
export const EVALUATION = `${VERSION}/evaluations/{evaluationId}`;
