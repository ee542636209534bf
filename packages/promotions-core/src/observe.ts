/**
 * What the package publishes through the observation seam (`@promo-review/errors/observe`): its name
 * and version, and the ids its operations act on. Nothing here runs unless the client has a
 * `telemetry` observer (its own option, or the shared `http` client's).
 */
import type { ObservationOrigin, ObservedValue } from "@promo-review/errors/observe";
import { type HttpClient, uuidDetails } from "@promo-review/http";
import { PROMOTIONS_CORE_VERSION } from "./version.js";

/** The package, as observers name it (an OpenTelemetry adapter's instrumentation scope). */
export const SOURCE = { name: "@promo-review/promotions-core", version: PROMOTIONS_CORE_VERSION };

/** Who publishes this client's operations, and how it redacts: the package, through `http`'s redactor. */
export const originOf = (http: HttpClient): ObservationOrigin => ({ source: SOURCE, redact: http.redact });

/** The ids an operation is given, or its result names. */
export interface Ids {
  promotionId?: string | undefined;
  versionId?: string | undefined;
  evaluationId?: string | undefined;
  commentId?: string | undefined;
}

const ID = /^(promotion|version|evaluation|comment)Id$/;

/**
 * `promotionId`, `versionId`, `evaluationId` and `commentId` of `ids` (ids are not secrets), each
 * only when it is a uuid: a value passed by mistake (a key pasted into the wrong argument) is never
 * published. http's `uuidDetails`, kept to this package's ids (never a result's `correlationId`).
 */
export const idDetails = (ids: object): Record<string, ObservedValue> => uuidDetails(ids, ID);
