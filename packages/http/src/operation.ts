/**
 * An operation of a service, declared once as plain data and schemas: what the packages' clients run
 * through this pipeline and what a description of the service (OpenAPI) is generated from.
 * @packageDocumentation
 */

/** How safe it is to send an operation's request again after a failure. */
export type ResendRule =
  /** Repeating it cannot duplicate work (a read, or a POST the service documents as a safe retry). */
  | "safe"
  /**
   * Only after an answer that says nothing was done (a 429, a 409 `upload_not_ready`): never after a
   * failure that may have reached the service.
   */
  | "notProcessed";

/**
 * An operation's route: what sending it needs, as plain data without schemas (its name, method, path
 * template, statuses and resend rule). A package's runtime imports its routes alone, so a
 * bundle that checks its answers by hand (a browser upload) carries no schema library; the package's
 * `/operations` entry composes each route with its schemas into the {@link OperationDeclaration}.
 */
export interface OperationRoute {
  /** `<client>.<method>`, as the user calls it and as observers name it: `promotions.create`. */
  readonly name: string;
  /** Upper-case: `GET`, `POST`, ... */
  readonly method: string;
  /** The spec's path template (`/v1/promotions/{promotionId}`): each `{id}` a uuid, put in once checked. */
  readonly path: string;
  /** The success statuses the spec states (or, where it states none, the one the service answers). */
  readonly statuses: readonly number[];
  /** When the request may be sent again. */
  readonly resend: ResendRule;
}

/**
 * An operation of several declared requests, which no single request states (an upload: its
 * initiation, chunks and status reads): its name, as the client's `telemetry` publishes it, and the
 * routes of the requests it may send, in order. Its requests are named by their own routes under it.
 */
export interface CompositeOperation<Steps extends readonly OperationRoute[] = readonly OperationRoute[]> {
  /** `<client>.<method>`, as the user calls it and as observers name it: `uploads.upload`. */
  readonly name: string;
  /** The routes of the requests it may send, in order. */
  readonly steps: Steps;
}

/**
 * One operation, as the spec states it: its route, and the schemas of its body and of its success
 * answer (valibot's, in this SDK), kept as values so that a generator can read them.
 */
export interface OperationDeclaration<Request = unknown, Response = unknown> extends OperationRoute {
  /** The rate-budget rule the request spends (`shared`: the main API's one budget per key). */
  readonly budget: string;
  /** The request body's schema; absent when the operation sends none. */
  readonly request?: Request | undefined;
  /** The success answer's schema. */
  readonly response: Response;
  /**
   * What a local refusal of the request body says (`The promotion creation request is invalid`).
   * Default `The request is invalid`.
   */
  readonly refusal?: string | undefined;
}
