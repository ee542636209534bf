/**
 * Every operation the description covers, as the packages that own them declare them, with what a
 * declaration does not say and a description needs: which service answers it, the rows of
 * docs/gaps.md where the spec is silent about it, and the error statuses it can answer beyond those
 * every operation can.
 */
import type { OperationDeclaration } from "@promo-review/http";
import { captureLink, discoverDesignFrames, pollImport } from "@promo-review/link-capture/operations";
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
import { chunkUpload, uploadInitiation, uploadStatusRead } from "@promo-review/upload-chunker/operations";
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

/** The main API's link-capture operations (link-capture). */
export const linkOperations: readonly DescribedOperation[] = [
  {
    declaration: captureLink,
    service: "main",
    gaps: [16, 21],
    note: "A generic URL is captured synchronously (201 with uploadId and fileFormat image; up to 2 minutes, so allow a generous timeout); a design-tool frame or cloud-drive link is imported asynchronously (202 with uploadId and statusUrl, to poll exactly as given). A file not shared with anyone with the link answers 403. Limited to 10 requests a minute per key besides the shared budget.",
  },
  {
    declaration: pollImport,
    service: "main",
    gaps: [8],
    query: [
      {
        name: "source",
        description: "Part of the statusUrl as the service issued it: send it back unchanged.",
      },
      {
        name: "sig",
        description:
          "The service's signature within the statusUrl: send it back byte for byte (a changed query answers 404).",
      },
    ],
    note: "The spec writes this request as GET {statusUrl}: use the statusUrl of the capture's answer exactly as returned. This path and its query are the form the simulator issues (docs/gaps.md, Links); a service may issue another. A completed import answers status completed with finalUploadId, to create a promotion with.",
  },
  { declaration: discoverDesignFrames, service: "main", gaps: [13] },
];

/** The file service's operations (upload-chunker). */
export const fileOperations: readonly DescribedOperation[] = [
  {
    declaration: uploadInitiation,
    service: "files",
    gaps: [16, 23],
    note: "A declared fileSize over its format's limit answers 413 PAYLOAD_TOO_LARGE with a max_file_size constraint_violation.",
  },
  {
    declaration: chunkUpload,
    service: "files",
    gaps: [12],
    errors: [409],
    bytes: {
      headers: [
        {
          name: "Content-Range",
          required: true,
          description:
            "bytes <start>-<end>/<total or *>: the chunk's place in the file; chunks in order, at most maxChunkSize bytes (400 when missing or malformed).",
        },
        { name: "Content-Length", required: true, description: "The chunk's length, end - start + 1." },
      ],
    },
    note: "A chunk out of order answers 409 with a content_range_start constraint_violation whose limit is the offset expected; a chunk over maxChunkSize answers 413 with max_chunk_size. A client also takes any 2xx, and 308 (Resume Incomplete), as the chunk stored.",
  },
  { declaration: uploadStatusRead, service: "files", gaps: [7, 16] },
];

/** Every operation of both services. */
export const describedOperations: readonly DescribedOperation[] = [
  ...mainOperations,
  ...linkOperations,
  ...fileOperations,
];
