/**
 * Sending one request of a declared operation's route, without schemas: to the path filled from the
 * template (`fillPath`: each id checked to be a uuid) or the URL the service gave, with the method,
 * the resend rule and the statuses as declared, and the template as the request's `urlTemplate`. The operation runner
 * sends through it, and so do the packages that check their answers by hand (the chunker, link
 * capture): no request of a declared operation states its route twice.
 * @packageDocumentation
 */
import { isUuid, localValidationError } from "@promo-review/errors/internal";
import type { HttpClient, HttpResult, RequestOptions } from "./client.js";
import type { OperationRoute } from "./operation.js";

/**
 * A request of a route: what the route does not state. Its `urlTemplate` is the route's template
 * unless given (`undefined`, for a URL the spec gives no template); its `expect` adds to the route's
 * statuses one the spec does not show (`[308]`).
 */
export type RouteRequest = Omit<RequestOptions, "method" | "idempotent">;

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * Returns `value` when it is a uuid, else throws a local `ValidationError` for `field` ("must be a
 * UUID string", "must be a UUID"), so that a typo in a path parameter costs no request.
 */
export function checkId(value: unknown, field: string): string {
  if (isUuid(value)) return value;
  const message = typeof value === "string" ? "must be a UUID" : "must be a UUID string";
  throw localValidationError([{ field, message }], `${field} is invalid`);
}

/**
 * `template` with each `{id}` checked to be a uuid, in order (so a typo costs no request), and put
 * in: a uuid holds only hex digits and hyphens, so it needs no encoding. A missing id is refused.
 */
export function fillPath(template: string, params: object = {}): string {
  const ids = params as Record<string, unknown>;
  return template.replace(PLACEHOLDER, (_, field: string) => checkId(ids[field], field));
}

/**
 * Sends one request of `route` on `http` to `path`: the route's template filled (`fillPath(route.path,
 * params)`, or the package's own check and fill), or a URL the service gave (an `uploadUrl`, a
 * `statusUrl`), which the request is still named by the template of, as the resource it is (the
 * `uploadUrl` of `/v1/uploads/{uploadId}`). With the route's method; resent only when its resend rule is `safe`; any 2xx or declared
 * status taken as the answer (every other is the pipeline's typed error). Returns the answer
 * unchecked: reading it is the caller's.
 */
export function sendRoute<T = unknown>(
  http: HttpClient,
  route: OperationRoute,
  path: string,
  options: RouteRequest,
): Promise<HttpResult<T>> {
  return http.request<T>(path, {
    method: route.method,
    idempotent: route.resend === "safe",
    // Any 2xx is an answer, the declared one or not (tolerant where the service strays from the spec
    // without harm); a declared status outside 2xx is one too. A request may name one the spec does
    // not show instead (`[308]`).
    expect: route.statuses,
    urlTemplate: route.path,
    // Never the route's method or resend rule (the type leaves them out).
    ...options,
  });
}
