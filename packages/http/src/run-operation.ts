/**
 * The operation runner: one call runs one declared operation (`OperationDeclaration`) through the
 * pipeline, so that a package states an operation once and every call of it is checked, sent,
 * observed and answered the same way. AWS SDK v3's `client.send(new Command())` and Speakeasy's
 * standalone functions are the model: the declaration is data, this function is the one that runs it,
 * and importing one declaration never bundles another.
 * @packageDocumentation
 */

import { unexpectedResponse } from "@promo-review/errors/internal";
import type { ObservationSource, ObservedOperation, ObservedValue } from "@promo-review/errors/observe";
import { observed } from "@promo-review/errors/observe";
import type * as v from "valibot";
import type { HttpClient } from "./client.js";
import type { OperationDeclaration } from "./operation.js";
import {
  type CallControl,
  callControl,
  responseMetadata,
  type WithResponse,
  withResponse,
} from "./response-metadata.js";
import { checkAnswer, checkBody, checkId, type Schema } from "./schema-check.js";
import { newCorrelationId } from "./url.js";
import { HTTP_VERSION } from "./version.js";

/** A declaration the runner can run: its schemas are valibot's. */
export type RunnableDeclaration = OperationDeclaration<Schema | undefined, Schema>;

/** The data a run of `D` answers with: its `response` schema's output, and the correlation id. */
export type OperationAnswer<D extends RunnableDeclaration> = v.InferOutput<D["response"]>;

/** What a run answers: `T` as the service sent it, with its `correlationId`, and `$response`. */
export type OperationResult<T> = WithResponse<T & { correlationId: string }>;

/** What one run of an operation is given, and what it adds to the declaration. */
export interface OperationCall extends CallControl {
  /**
   * The ids the path's template names (`{ promotionId, versionId }`), each checked to be a uuid before
   * anything is sent. Further ids (the comment a reply answers) are not sent but name the operation.
   */
  params?: Record<string, unknown> | undefined;
  /**
   * The request body, checked against the declaration's `request` schema unless `validate` is false.
   * A function is called inside the operation, once the ids were checked: what it throws (a local
   * refusal) ends the operation as any failure does.
   */
  body?: unknown;
  /** Query parameters, appended in order; an `undefined` value is left out. */
  query?: Record<string, string | number | boolean | undefined> | undefined;
  signal?: AbortSignal | undefined;
  /** Sent as `X-Correlation-ID` on every request of the operation; a fresh one is made when absent. */
  correlationId?: string | undefined;
  /** The operation this one runs inside (a facade's flow), as the client's `telemetry` started it. */
  parent?: ObservedOperation | undefined;
  /** Whether the body is checked before sending. Default true. */
  validate?: boolean | undefined;
  /**
   * A path to send to instead of the declared template (a client's configured `evaluationPath`, say).
   * The `params` are still checked against the template; the request names no `urlTemplate`, since
   * the spec states none for that path.
   */
  path?: string | undefined;
  /**
   * The package that publishes the operation (its npm name and version), as observers name its
   * instrumentation scope. Default: this package.
   */
  source?: ObservationSource | undefined;
  /**
   * What the operation learnt from its result, for observers (the ids it names), under the same keys
   * as its `params`. Default: nothing more than its params.
   */
  learnt?: ((result: object) => Record<string, ObservedValue> | undefined) | undefined;
  /**
   * Runs the request the way the package's operation needs beyond the declaration (waiting out a
   * 409 `upload_not_ready` and sending again, explaining an ambiguous failure): `send` is one request
   * with its checks, `context` the operation and its correlation id. Default: `send()`.
   */
  around?: (<R>(send: () => Promise<R>, context: RunContext) => Promise<R>) | undefined;
}

/** What {@link OperationCall.around} is given beside `send`. */
export interface RunContext {
  /** The running operation, as the client's `telemetry` started it (its waits are published on it). */
  operation: ObservedOperation | undefined;
  /** The correlation id every request of the operation sends. */
  correlationId: string;
}

const SOURCE: ObservationSource = { name: "@promo-review/http", version: HTTP_VERSION };
const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * `template` with each `{id}` checked to be a uuid, in order (so a typo costs no request), and put
 * in: a uuid holds only hex digits and hyphens, so it needs no encoding. A missing id is refused.
 */
export function fillPath(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(PLACEHOLDER, (_, field: string) => checkId(params[field], field));
}

/** The uuid-valued params: what an observer may hear of them (a key pasted by mistake never is). */
function idsOf(params: Record<string, unknown> | undefined): Record<string, ObservedValue> {
  const details: Record<string, ObservedValue> = {};
  for (const key in params) {
    const value = params[key];
    try {
      details[key] = checkId(value, key);
    } catch {
      // Not a uuid: not published.
    }
  }
  return details;
}

/**
 * The caller's body with only the fields the schema normalises (trimmed, deduplicated `tags`) in
 * their normal form: every other field, unknown ones included, is sent exactly as given.
 */
function normalised(body: unknown, output: unknown): unknown {
  if (typeof body !== "object" || body === null || typeof output !== "object" || output === null) return body;
  let sent: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(output)) {
    const given = (body as Record<string, unknown>)[key];
    if (given !== value && JSON.stringify(given) !== JSON.stringify(value)) {
      sent ??= { ...(body as Record<string, unknown>) };
      sent[key] = value;
    }
  }
  return sent ?? body;
}

function withQuery(path: string, query: OperationCall["query"]): string {
  const search = new URLSearchParams();
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

/**
 * One request of `declaration`, inside `operation` (already started): the path filled, the body
 * checked, sent as declared (its method, its resend rule, its template as `urlTemplate`), the status
 * checked against its `statuses` and the answer against its `response` schema. Throws typed errors
 * only; a local refusal is thrown before anything is sent.
 */
export async function sendOperation<D extends RunnableDeclaration, T = OperationAnswer<D>>(
  http: HttpClient,
  declaration: D,
  call: OperationCall = {},
  operation?: ObservedOperation,
): Promise<OperationResult<T>> {
  const { name, statuses } = declaration;
  const filled = fillPath(declaration.path, call.params);
  const path = withQuery(call.path ?? filled, call.query);
  const given = typeof call.body === "function" ? (call.body as () => unknown)() : call.body;
  const { request } = declaration;
  const json =
    request && call.validate !== false && given !== undefined
      ? normalised(given, checkBody(request, given, declaration.refusal ?? "The request is invalid"))
      : given;
  const correlationId = call.correlationId ?? newCorrelationId();
  const send = async () => {
    const result = await http.request<unknown>(path, {
      method: declaration.method,
      ...(json !== undefined ? { json } : {}),
      idempotent: declaration.resend === "safe",
      expect: statuses,
      parent: operation,
      urlTemplate: call.path === undefined ? declaration.path : undefined,
      ...callControl(call),
      correlationId,
      signal: call.signal,
    });
    const { data, status } = result;
    const context = { operation: name, correlationId: result.correlationId, status, redact: http.redact };
    if (!statuses.includes(status)) {
      throw unexpectedResponse({
        ...context,
        field: "(status)",
        problem: `must be ${statuses.join(" or ")} (got ${status})`,
      });
    }
    const checked = checkAnswer<T>(declaration.response, data, context);
    // Unknown fields are kept: the body is returned as sent, with the correlation id added.
    return withResponse(
      { ...checked, correlationId: result.correlationId },
      responseMetadata(result, http.redact),
    );
  };
  return call.around ? call.around(send, { operation, correlationId }) : send();
}

/**
 * Runs `declaration` as one operation of `http`'s `telemetry` (named by the declaration, inside
 * `call.parent`, with the uuid ids of `call.params` and, once answered, what `call.learnt` reads from
 * the result), sending it with {@link sendOperation}. A local refusal ends the operation with its
 * `ValidationError` before anything is sent. Returns the answer, as sent, with its `correlationId`
 * and the exchange's `$response`.
 */
export function runOperation<D extends RunnableDeclaration, T = OperationAnswer<D>>(
  http: HttpClient,
  declaration: D,
  call: OperationCall = {},
): Promise<OperationResult<T>> {
  const { telemetry } = http;
  return observed(
    telemetry,
    {
      source: call.source ?? SOURCE,
      redact: http.redact,
      name: declaration.name,
      // Built only when observed: without an observer no observation code runs, not even this.
      details: telemetry ? idsOf(call.params) : undefined,
      parent: call.parent,
    },
    (operation) => sendOperation<D, T>(http, declaration, call, operation),
    call.learnt,
  );
}
