/**
 * Valibot schemas to JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) through
 * `@valibot/to-json-schema`, with the few rules it cannot express handled here on purpose:
 *
 * - `v.custom` (a hand-written predicate) has no JSON Schema. Every `custom` in the declarations is
 *   the "plain JSON object" check (`plainObjectSchema`), so it becomes `{ type: "object" }`; a pipe
 *   that starts with it and goes on with an object schema (the request bodies) becomes that object.
 * - `v.check` and `v.rawCheck` (cross-field rules: the text-vs-file rule, reserved tags, metadata
 *   keys, calendar dates) cannot be expressed: their message is kept in `description`
 *   (`check: ...`), and the schema accepts more than the client does. The service's 400 covers them.
 * - `v.transform` and `v.trim` change the value, not what is accepted: skipped, so the schema
 *   describes what is sent (tags before trimming and de-duplication).
 * - `v.looseObject` (every answer) leaves `additionalProperties` open: unknown fields are allowed.
 * Any other action or schema the converter cannot express is an error: the generation stops.
 */
import { type ConversionConfig, type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";

/** A valibot schema, as the declarations hold it. */
export type ValibotSchema = Parameters<typeof toJsonSchema>[0];

/** Actions that change the value and not what is accepted: dropped from the description. */
const VALUE_CHANGES = new Set(["transform", "trim", "raw_transform"]);
/** Actions that run a predicate JSON Schema cannot say: kept as text. */
const PREDICATES = new Set(["check", "raw_check"]);

function describe(schema: JsonSchema, note: string): JsonSchema {
  return { ...schema, description: schema.description ? `${schema.description}; ${note}` : note };
}

interface PipedSchema {
  readonly kind: string;
  readonly type: string;
  readonly pipe?: readonly { kind: string; type: string }[];
}

/**
 * A request body's pipe: the plain-object check (`custom`), then an object schema and its checks.
 * Converted as that object schema followed by the remaining actions.
 */
function customPipe(schema: PipedSchema): JsonSchema {
  const rest = (schema.pipe ?? []).slice(1);
  const objectAt = rest.findIndex((item) => item.kind === "schema");
  const [objectSchema, ...after] = rest.slice(objectAt);
  let result = convert(objectSchema as unknown as ValibotSchema);
  for (const action of after) result = actionNote(action, result);
  return result;
}

function actionNote(action: { type: string; message?: unknown }, schema: JsonSchema): JsonSchema {
  if (VALUE_CHANGES.has(action.type)) return schema;
  if (action.type === "check" && typeof action.message === "string")
    return describe(schema, `check: ${action.message}`);
  if (PREDICATES.has(action.type))
    return describe(
      schema,
      "check: a rule across fields that this schema does not express (see the operation)",
    );
  throw new Error(`the "${action.type}" action cannot be described in JSON Schema`);
}

const config: ConversionConfig = {
  target: "draft-2020-12",
  typeMode: "ignore",
  errorMode: "throw",
  overrideSchema: ({ valibotSchema }) => (valibotSchema.type === "custom" ? { type: "object" } : undefined),
  overrideAction: ({ valibotAction, jsonSchema }) =>
    VALUE_CHANGES.has(valibotAction.type) || PREDICATES.has(valibotAction.type)
      ? actionNote(valibotAction as { type: string; message?: unknown }, jsonSchema)
      : undefined,
};

function convert(schema: ValibotSchema): JsonSchema {
  // The converter cannot be told how to read a pipe of two schemas (it stops before asking), so the
  // request bodies' "plain object, then this object" pipe is read here.
  const piped = schema as unknown as PipedSchema;
  if (piped.type === "custom" && piped.pipe?.slice(1).some((item) => item.kind === "schema"))
    return customPipe(piped);
  const { $schema: _dialect, ...json } = toJsonSchema(schema, config);
  return json;
}

/**
 * The JSON Schema (2020-12, no `$schema` key: the document's dialect applies) of a valibot schema
 * from a declaration. Throws when a part of it cannot be described.
 */
export function jsonSchemaOf(schema: ValibotSchema): JsonSchema {
  return convert(schema);
}
