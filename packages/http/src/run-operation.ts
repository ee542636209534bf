/**
 * The operation runner: one call runs one declared operation (`OperationDeclaration`) through the
 * pipeline, so that a package states an operation once and every call of it is checked, sent,
 * observed and answered the same way. AWS SDK v3's `client.send(new Command())` and Speakeasy's
 * standalone functions are the model: the declaration is data, this function is the one that runs it,
 * and importing one declaration never bundles another.
 * @packageDocumentation
 */

import { isUuid, type ResponseContext } from "@promo-review/errors/internal";
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
import { checkAnswer, checkBody, type Schema } from "./schema-check.js";
import { fillPath, sendRoute } from "./send-route.js";
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
  params?: object | undefined;
  /**
   * The request body, checked against the declaration's `request` schema unless `validate` is false.
   * A function is called inside the operation, once the ids were checked: what it throws (a local
   * refusal) ends the operation as any failure does.
   */
  body?: unknown;
  /** Query parameters, appended in order after `?`. */
  query?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
  /** Sent as `X-Correlation-ID` on every request of the operation; a fresh one is made when absent. */
  correlationId?: string | undefined;
  /** The operation this one runs inside (a facade's flow), as the client's `telemetry` started it. */
  parent?: ObservedOperation | undefined;
  /** Whether the body is checked before sending. Default true. */
  validate?: boolean | undefined;
  /**
   * A path to send to instead of the declared template (a client's configured `evaluationPath`, say).
   * The `params` are still checked against the template first (a function is called only then, after
   * the body); the request names no `urlTemplate`, since the spec states none for that path.
   */
  path?: string | (() => string) | undefined;
  /**
   * Reads the answer the package's own way instead of checking it against the `response` schema (a
   * list found tolerantly in its body, say): returns what the run answers with, or throws an
   * `UNEXPECTED_RESPONSE` built on `context`.
   */
  read?: ((data: unknown, context: ResponseContext) => object) | undefined;
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
  /** The declaration's name (`promotions.create`), for an error about its answer. */
  name: string;
  /** The running operation, as the client's `telemetry` started it (its waits are published on it). */
  operation: ObservedOperation | undefined;
  /** The correlation id every request of the operation sends. */
  correlationId: string;
}

const SOURCE: ObservationSource = { name: "@promo-review/http", version: HTTP_VERSION };

/**
 * The uuid-valued fields of `ids` (under a key `keys` matches, when given): what an observer may hear
 * of an operation's ids, since ids are not secrets, while a value passed by mistake (a key pasted into
 * the wrong argument) never is published.
 */
export function uuidDetails(ids: object | undefined, keys?: RegExp): Record<string, ObservedValue> {
  const details: Record<string, ObservedValue> = {};
  for (const [key, value] of Object.entries(ids ?? {})) {
    if (isUuid(value) && (!keys || keys.test(key))) details[key] = value;
  }
  return details;
}

/**
 * The caller's body with the schema's output laid over it: the fields the schema normalises (trimmed,
 * deduplicated `tags`) go in their normal form, every other field keeps its value and its place, and a
 * field the schema does not name (an unknown one) is sent as given: a loose schema's output holds it
 * unchanged, a strict one's not at all. Laying the whole output over the body sends what comparing it
 * field by field would, without serialising every field twice.
 */
function normalised(body: unknown, output: unknown): unknown {
  return typeof output === "object" && output !== null ? { ...(body as object), ...output } : body;
}

/**
 * One request of `declaration`, inside `operation` (already started): the path filled, the body
 * checked, sent as declared (its method, its resend rule, its template as `urlTemplate`), its answer
 * taken on any 2xx or declared status (any other is the pipeline's typed error) and checked against
 * its `response` schema. Throws typed errors
 * only; a local refusal is thrown before anything is sent.
 */
export async function sendOperation<D extends RunnableDeclaration, T = OperationAnswer<D>>(
  http: HttpClient,
  declaration: D,
  call: OperationCall = {},
  operation?: ObservedOperation,
): Promise<OperationResult<T>> {
  const { name } = declaration;
  const filled = fillPath(declaration.path, call.params);
  const given = typeof call.body === "function" ? (call.body as () => unknown)() : call.body;
  const { request } = declaration;
  const json =
    request && call.validate !== false && given !== undefined
      ? normalised(given, checkBody(request, given, declaration.refusal ?? "The request is invalid"))
      : given;
  const chosen = typeof call.path === "function" ? call.path() : call.path;
  const { query } = call;
  const path = (chosen ?? filled) + (query ? `?${new URLSearchParams(query)}` : "");
  const correlationId = call.correlationId ?? newCorrelationId();
  const send = async () => {
    const result = await sendRoute(http, declaration, path, {
      json,
      parent: operation,
      urlTemplate: call.path === undefined ? declaration.path : undefined,
      ...callControl(call),
      correlationId,
      signal: call.signal,
    });
    const { data, status } = result;
    const context = { operation: name, correlationId: result.correlationId, status, redact: http.redact };
    const checked = (
      call.read ? call.read(data, context) : checkAnswer(declaration.response, data, context)
    ) as T;
    // Unknown fields are kept: the body is returned as sent, with the correlation id added.
    return withResponse(
      { ...checked, correlationId: result.correlationId },
      responseMetadata(result, http.redact),
    );
  };
  return call.around ? call.around(send, { name, operation, correlationId }) : send();
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
      details: telemetry ? uuidDetails(call.params) : undefined,
      parent: call.parent,
    },
    (operation) => sendOperation<D, T>(http, declaration, call, operation),
    call.learnt,
  );
}
