/**
 * The OpenAPI 3.1 document of both services, built from the operations' declarations: one path item
 * per path, each operation's request and answer schemas converted from valibot, the two servers, the
 * spec's authentication headers, the error envelope on every error status the spec names, and each
 * "not shown" point as the choice it is (`x-promo-review-gap`).
 */
import type { JsonSchema } from "@valibot/to-json-schema";
import { errorEnvelopeSchema } from "./error-envelope.js";
import type { GapChoice } from "./gaps.js";
import { jsonSchemaOf } from "./json-schema.js";
import type { DescribedOperation } from "./operations.js";

/** A JSON value of the document. */
export type OpenApiDocument = Record<string, unknown>;

/** What {@link openApiDocument} builds from. */
export interface OpenApiDocumentOptions {
  /** The operations to describe (`describedOperations` for both services). */
  readonly operations: readonly DescribedOperation[];
  /** docs/gaps.md's table (`parseGaps`): every row an operation cites must be in it. */
  readonly gaps: readonly GapChoice[];
  /** The document's `info.version` (the spec's API description version). */
  readonly version?: string;
}

/** The error statuses and what the spec (or docs/gaps.md) says of each. */
const ERROR_STATUSES: Record<number, { description: string; gap?: number }> = {
  400: {
    description:
      "VALIDATION_ERROR (a bad field, named in details) or INVALID_REQUEST (a missing header, a body that is not JSON).",
  },
  401: { description: "UNAUTHORIZED: a missing, invalid or revoked key." },
  403: { description: "FORBIDDEN (status not shown in the spec: docs/gaps.md row 21).", gap: 21 },
  404: { description: "NOT_FOUND: no such record (or PARENT_NOT_FOUND on a comment reply)." },
  409: {
    description:
      "CONFLICT: a referenced upload has not finished (upload_not_ready details), or a chunk out of order (status not shown in the spec: docs/gaps.md row 21).",
    gap: 21,
  },
  413: {
    description:
      "PAYLOAD_TOO_LARGE, with a constraint_violation detail (status not shown in the spec: docs/gaps.md row 21).",
    gap: 21,
  },
  429: {
    description:
      "RATE_LIMITED: the Retry-After header gives the seconds to wait; details may carry retry_info.",
  },
  500: { description: "INTERNAL_ERROR." },
  502: {
    description:
      "UPSTREAM_ERROR or SERVICE_ERROR, a transient failure: send again after 2 to 5 seconds (status not shown in the spec: docs/gaps.md row 21).",
    gap: 21,
  },
};

/** Gap rows that concern every operation. */
const EVERY_OPERATION_GAPS = [17, 21, 22, 25];

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

function camel(name: string): string {
  const p = pascal(name);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

/** The gap rows a document cites, checked against docs/gaps.md's table and collected once. */
class GapRows {
  readonly #gaps: ReadonlyMap<number, GapChoice>;
  readonly #used = new Set<number>();

  constructor(gaps: readonly GapChoice[]) {
    this.#gaps = new Map(gaps.map((gap) => [gap.row, gap]));
  }

  /** Checks and records the rows; returns them for an `x-promo-review-gap` extension. */
  cite(rows: readonly number[]): number[] {
    for (const row of rows) {
      if (!this.#gaps.has(row)) throw new Error(`docs/gaps.md has no row ${row}`);
      this.#used.add(row);
    }
    return [...rows];
  }

  /** A sentence naming the rows, for a description a tool shows without the extension. */
  sentence(rows: readonly number[]): string {
    const named = this.cite(rows).map((row) => `row ${row} (${this.#gaps.get(row)!.point})`);
    return `Where the spec is silent, the choices of docs/gaps.md apply: ${named.join("; ")}.`;
  }

  /** Every cited row, with the choice made and the client's tolerance. */
  table() {
    return [...this.#used]
      .sort((a, b) => a - b)
      .map((row) => {
        const gap = this.#gaps.get(row)!;
        return { row, point: gap.point, choice: gap.simulator, clientTolerance: gap.client };
      });
  }
}

/** Every answer carries `correlationId` (the spec says a uuid; the service echoes a caller's own id). */
function withCorrelationId(schema: JsonSchema): JsonSchema {
  const correlationId: JsonSchema = {
    type: "string",
    description: "A uuid, or the caller's own X-Correlation-ID echoed back.",
  };
  if (schema.type === "object" && schema.properties)
    return {
      ...schema,
      properties: { ...schema.properties, correlationId },
      required: [...(schema.required ?? []), "correlationId"],
    };
  return { allOf: [schema, { type: "object", properties: { correlationId }, required: ["correlationId"] }] };
}

function errorStatuses(operation: DescribedOperation): number[] {
  const { declaration, service } = operation;
  const statuses = new Set([400, 401, 403, 500, 502, ...(operation.errors ?? [])]);
  if (service === "main") statuses.add(429);
  if (declaration.path.includes("{")) statuses.add(404);
  if (declaration.request !== undefined || operation.bytes) statuses.add(413);
  return [...statuses].sort((a, b) => a - b);
}

/** The error answers, once each: the envelope, and what the spec (or docs/gaps.md) says of the status. */
function errorResponses(gaps: GapRows): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, known] of Object.entries(ERROR_STATUSES))
    responses[`Error${status}`] = {
      description: known.description,
      ...(status === "429"
        ? { headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } }
        : {}),
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
      ...(known.gap ? { "x-promo-review-gap": gaps.cite([known.gap]) } : {}),
    };
  return responses;
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{([A-Za-z]+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  }));
}

function requestBody(operation: DescribedOperation, schemaName: string) {
  if (operation.bytes)
    return {
      required: true,
      content: {
        "application/octet-stream": {
          schema: { type: "string", contentMediaType: "application/octet-stream" },
        },
      },
    };
  if (operation.declaration.request === undefined) return undefined;
  return {
    required: true,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaName}` } } },
  };
}

function describeOperation(
  operation: DescribedOperation,
  gaps: GapRows,
  schemas: Record<string, JsonSchema>,
) {
  const { declaration } = operation;
  const base = pascal(declaration.name);
  if (declaration.request !== undefined) schemas[`${base}Request`] = jsonSchemaOf(declaration.request);
  schemas[`${base}Response`] = withCorrelationId(jsonSchemaOf(declaration.response));
  const responses: Record<string, unknown> = {};
  for (const status of declaration.statuses)
    responses[String(status)] = {
      description: `Success (${declaration.name}).`,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${base}Response` } } },
    };
  for (const status of errorStatuses(operation))
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const headers = (operation.bytes?.headers ?? []).map((header) => ({
    name: header.name,
    in: "header",
    required: header.required,
    description: header.description,
    schema: { type: "string" },
  }));
  const query = (operation.query ?? []).map((q) => ({
    name: q.name,
    in: "query",
    required: true,
    description: q.description,
    schema: { type: "string" },
  }));
  const body = requestBody(operation, `${base}Request`);
  return {
    operationId: camel(declaration.name),
    summary: declaration.name,
    ...(operation.note || operation.gaps.length > 0
      ? {
          description: [operation.note, operation.gaps.length > 0 ? gaps.sentence(operation.gaps) : undefined]
            .filter(Boolean)
            .join("\n\n"),
        }
      : {}),
    tags: [declaration.name.split(".")[0]!],
    parameters: [
      ...pathParameters(declaration.path),
      ...query,
      ...headers,
      { $ref: "#/components/parameters/CorrelationId" },
      { $ref: "#/components/parameters/ExternalUserEmail" },
      ...(operation.service === "files" ? [{ $ref: "#/components/parameters/WorkspaceId" }] : []),
    ],
    ...(body ? { requestBody: body } : {}),
    responses,
    ...(operation.service === "files"
      ? { security: [{ bearer: [], externalUserId: [] }, { bearer: [] }] }
      : {}),
    "x-promo-review-operation": {
      name: declaration.name,
      resend: declaration.resend,
      budget: declaration.budget,
    },
    ...(operation.gaps.length > 0 ? { "x-promo-review-gap": gaps.cite(operation.gaps) } : {}),
  };
}

const FILES_SERVER = {
  url: "{files_url}",
  description: "The file service (uploads).",
  variables: {
    files_url: {
      default: "http://127.0.0.1:4011",
      description:
        "The file service's URL given with your key; the default is a local simulator (`promo-review simulator --files-port 4011`).",
    },
  },
};

/** Builds the OpenAPI 3.1 document of the given operations. Throws when a part cannot be described. */
export function openApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  const gaps = new GapRows(options.gaps);
  const schemas: Record<string, JsonSchema> = { ErrorEnvelope: jsonSchemaOf(errorEnvelopeSchema) };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of options.operations) {
    const { declaration } = operation;
    const item =
      paths[declaration.path] ?? (operation.service === "files" ? { servers: [FILES_SERVER] } : {});
    paths[declaration.path] = item;
    const method = declaration.method.toLowerCase();
    if (item[method]) throw new Error(`two operations declare ${declaration.method} ${declaration.path}`);
    item[method] = describeOperation(operation, gaps, schemas);
  }
  return {
    openapi: "3.1.1",
    info: {
      title: "Promotion Compliance Review API",
      version: options.version ?? "1.0.0",
      description:
        "The main API and the file service of the Promotion Compliance Review service, generated from the operation declarations of the @promo-review packages (packages/openapi). Where the service's interface leaves a point \"not shown\", the description states the choice made, as `x-promo-review-gap` (the rows of docs/gaps.md it follows), each row's point, choice and the client's tolerance in `x-promo-review-gaps`. Answers carry unknown fields: every object schema is open.",
      license: { name: "MIT", identifier: "MIT" },
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [
      {
        url: "{base_url}",
        description: "The main API.",
        variables: {
          base_url: {
            default: "http://127.0.0.1:4010",
            description:
              "The main API's URL given with your key (staging and production keys are not interchangeable); the default is a local simulator (`promo-review simulator --main-port 4010`).",
          },
        },
      },
    ],
    security: [{ bearer: [], externalUserId: [] }],
    tags: [...new Set(options.operations.map((o) => o.declaration.name.split(".")[0]!))].map((name) => ({
      name,
    })),
    paths,
    components: {
      schemas,
      responses: errorResponses(gaps),
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description:
            "Authorization: Bearer <API_KEY> (one space). On the file service also a user session token.",
        },
        externalUserId: {
          type: "apiKey",
          in: "header",
          name: "X-External-User-ID",
          description:
            "The acting user in the calling system, recorded against every audited action: required on the main API (400 without it) and with an API key on the file service.",
        },
      },
      parameters: {
        CorrelationId: {
          name: "X-Correlation-ID",
          in: "header",
          required: false,
          description: "The caller's own trace id; the service echoes it in every answer.",
          schema: { type: "string" },
        },
        ExternalUserEmail: {
          name: "X-External-User-Email",
          in: "header",
          required: false,
          description:
            "Email of the acting user: used only by keys with act-on-behalf enabled (mandatory on their writes), ignored otherwise.",
          schema: { type: "string", format: "email" },
        },
        WorkspaceId: {
          name: "x-service-workspace-id",
          in: "header",
          required: false,
          description:
            "The workspace, needed only with a session token where the workspace cookie cannot be shared.",
          schema: { type: "string", format: "uuid" },
        },
      },
      headers: {
        RetryAfter: {
          description: "Seconds to wait before sending again.",
          schema: { type: "integer", minimum: 0 },
        },
      },
    },
    "x-promo-review-gap": gaps.cite(EVERY_OPERATION_GAPS),
    "x-promo-review-gaps": gaps.table(),
  };
}
