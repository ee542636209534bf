/**
 * `@promo-review/openapi` (private): the OpenAPI 3.1 description of the Promotion Compliance Review
 * service's two services, generated from the operation declarations of the packages that own them.
 * The generated document is committed as `promo-review.openapi.json`; `pnpm --filter
 * @promo-review/openapi generate` writes it again.
 * @packageDocumentation
 */
import { type OpenApiDocument, openApiDocument } from "./document.js";
import { parseGaps } from "./gaps.js";
import { describedOperations } from "./operations.js";

export { type OpenApiDocument, type OpenApiDocumentOptions, openApiDocument } from "./document.js";
export { errorDetailSchema, errorEnvelopeSchema } from "./error-envelope.js";
export { type GapChoice, parseGaps } from "./gaps.js";
export { jsonSchemaOf, type ValibotSchema } from "./json-schema.js";
export {
  type DescribedOperation,
  describedOperations,
  fileOperations,
  linkOperations,
  mainOperations,
} from "./operations.js";

/** The committed document's file name, beside this package's package.json. */
export const DOCUMENT_FILE = "promo-review.openapi.json";

/**
 * The description of both services, from every declared operation and docs/gaps.md's table (its
 * text, passed in: this package reads no file itself).
 */
export function promoReviewDocument(gapsMarkdown: string): OpenApiDocument {
  return openApiDocument({ operations: describedOperations, gaps: parseGaps(gapsMarkdown) });
}

/** The document as the committed file holds it: two-space JSON and a final newline. */
export function renderDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
