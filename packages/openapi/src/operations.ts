/**
 * Every operation the description covers, as the packages that own them declare them, with what a
 * declaration does not say and a description needs: which service answers it, the rows of
 * docs/gaps.md where the spec is silent about it, and the error statuses it can answer beyond those
 * every operation can.
 */
import type { OperationDeclaration } from "@promo-review/http";
import {
  createPromotion,
  createVersion,
  getDecision,
  getEvaluation,
  getPromotion,
  listChannels,
  listJurisdictions,
  listProducts,
  listTargetMarkets,
  replyToComment,
  startEvaluation,
  submitVersion,
} from "@promo-review/promotions-core";
import type { ValibotSchema } from "./json-schema.js";

/** One operation of a service, as the description sees it. */
export interface DescribedOperation {
  /** The operation, declared once by the package that owns it. */
  readonly declaration: OperationDeclaration<ValibotSchema | undefined, ValibotSchema>;
  /** `main` (the main API at `{base_url}`) or `files` (the file service at `{files_url}`). */
  readonly service: "main" | "files";
  /** The rows of docs/gaps.md that are choices about this operation. */
  readonly gaps: readonly number[];
  /** Error statuses this operation answers besides the ones every operation of its service can. */
  readonly errors?: readonly number[];
  /** A request body that is not JSON (a chunk's bytes), with the headers that go with it. */
  readonly bytes?: { readonly headers: readonly { name: string; description: string; required: boolean }[] };
  /** Query parameters of the path (the link poll's, which the service issues). */
  readonly query?: readonly { name: string; description: string }[];
  /** What the description says beyond the declaration (rules JSON Schema cannot express). */
  readonly note?: string;
}

const TEXT_VS_FILE =
  "fileFormat text takes content and no uploadIds; every other fileFormat takes uploadIds and no content";

/** The main API's promotion, evaluation, comment and reference operations (promotions-core). */
export const mainOperations: readonly DescribedOperation[] = [
  {
    declaration: createPromotion,
    service: "main",
    gaps: [1, 2, 3, 24],
    errors: [409],
    note: `Rules across fields: ${TEXT_VS_FILE}; variations (2 to 20) exclude top-level uploadIds, content and fileFormat; tags are trimmed and de-duplicated, names beginning with Var- and the name TESTING are reserved; metadata keys are [A-Za-z0-9_-]{1,128}, values strings of at most 1024 characters, at most 20 keys. A 409 CONFLICT with upload_not_ready details means an upload has not finished: send again after a short delay.`,
  },
  { declaration: getPromotion, service: "main", gaps: [6] },
  {
    declaration: createVersion,
    service: "main",
    gaps: [10],
    errors: [409],
    note: `Rules across fields: ${TEXT_VS_FILE}. A 409 upload_not_ready means an upload has not finished.`,
  },
  { declaration: submitVersion, service: "main", gaps: [6, 11, 16] },
  { declaration: getDecision, service: "main", gaps: [6, 16] },
  { declaration: startEvaluation, service: "main", gaps: [9] },
  { declaration: getEvaluation, service: "main", gaps: [5, 9, 14] },
  {
    declaration: replyToComment,
    service: "main",
    gaps: [14],
    errors: [404],
    note: "404 PARENT_NOT_FOUND while the parent comment is not indexed yet: send again after a short delay.",
  },
  { declaration: listChannels, service: "main", gaps: [16] },
  { declaration: listJurisdictions, service: "main", gaps: [16] },
  { declaration: listProducts, service: "main", gaps: [4, 15, 16] },
  { declaration: listTargetMarkets, service: "main", gaps: [4, 15, 16] },
];

/** Every operation of both services. */
export const describedOperations: readonly DescribedOperation[] = [...mainOperations];
