/**
 * Reads answers against the committed OpenAPI document: which operation of the document an answer
 * belongs to, whether its status is described, and whether its body matches the described schema
 * (ajv, JSON Schema 2020-12, formats checked). Test-only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** The committed document, parsed. */
export type Document = {
  paths: Record<string, Record<string, unknown> & { servers?: unknown[] }>;
  components: { schemas: Record<string, unknown>; responses: Record<string, unknown> };
};

/** An answer a service gave: which service, the request's method and path, the status and the body. */
export interface RecordedAnswer {
  readonly service: "main" | "files";
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
}

/** The committed document's path. */
export const DOCUMENT_PATH = join(import.meta.dirname, "..", "..", "promo-review.openapi.json");

/** Reads the committed document. */
export function committedDocument(): Document {
  return JSON.parse(readFileSync(DOCUMENT_PATH, "utf8")) as Document;
}

/** The service a path item belongs to: its own `servers` name the file service. */
export function serviceOf(item: { servers?: unknown[] }): "main" | "files" {
  return item.servers ? "files" : "main";
}

function matches(template: string, path: string): boolean {
  const pattern = new RegExp(`^${template.replace(/\{[A-Za-z]+\}/g, "[^/]+")}$`);
  return pattern.test(path);
}

type Operation = {
  operationId: string;
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { $ref: string } }> }>;
};

/** Checks answers against a document; each check returns the problems found (none when it matches). */
export function answerChecker(document: Document) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  const defs = JSON.parse(
    JSON.stringify(document.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"),
  );
  ajv.addSchema({ $id: "promo-review", $defs: defs });

  const operationOf = (answer: RecordedAnswer): { template: string; operation: Operation } | undefined => {
    for (const [template, item] of Object.entries(document.paths)) {
      if (serviceOf(item) !== answer.service || !matches(template, answer.path)) continue;
      const operation = item[answer.method.toLowerCase()] as Operation | undefined;
      if (operation) return { template, operation };
    }
    return undefined;
  };

  return {
    /** The operation id an answer belongs to, if the document describes its route. */
    operationIdOf: (answer: RecordedAnswer) => operationOf(answer)?.operation.operationId,
    /** Problems of one answer against the document. */
    check(answer: RecordedAnswer): string[] {
      const found = operationOf(answer);
      const where = `${answer.service} ${answer.method} ${answer.path} -> ${answer.status}`;
      if (!found) return [`${where}: no operation of the document describes this route`];
      let response = found.operation.responses[String(answer.status)];
      if (!response) return [`${where}: status not described for ${found.operation.operationId}`];
      if (response.$ref)
        response = document.components.responses[response.$ref.split("/").pop()!] as typeof response;
      const ref = response.content?.["application/json"]?.schema.$ref;
      if (!ref) return [`${where}: no JSON schema described`];
      const validate = ajv.getSchema(`promo-review#/$defs/${ref.split("/").pop()}`)!;
      if (validate(answer.body)) return [];
      return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || "(body)"} ${e.message}`);
    },
  };
}
