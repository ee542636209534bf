/**
 * The file service's uploads: initiation, chunked PUT with Content-Range, status. Bytes are streamed
 * to a temporary file and hashed as they arrive (never held whole in memory), so a 2 GiB upload runs
 * in a small, constant amount of memory.
 */
import { createHash, type Hash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseContentRange } from "./content-range.js";
import { ApiError, fieldError } from "./envelope.js";
import { type FileFormat, formatOfContentType } from "./formats.js";
import { isNonEmptyString, Problems } from "./problems.js";
import type { Random } from "./random.js";

/**
 * How many received bytes may wait for the file while a write is under way. Socket reads arrive in
 * pieces of about 64 KiB; with the write stream's default of 16 KiB every piece became its own write
 * on the thread pool (16 384 per GiB). Up to 1 MiB waiting lets the stream write them together: the
 * simulator's CPU per GiB stored fell from 2.3–3.0 s to 1.7–2.1 s on a 2-core machine
 * (`packages/upload-chunker/bench`), which leaves the client under test its core.
 */
const WRITE_BATCH_BYTES = 1024 * 1024;

/** Upload status values of the spec. */
export type UploadStatus = "pending" | "uploading" | "completed" | "failed";

/** An upload whose file name contains this ends `failed` instead of `completed` after processing. */
export const FAILING_NAME_MARK = "fail-processing";

/** The public upload object (`GET /v1/uploads/{id}`), without correlationId. */
export interface UploadView {
  uploadId: string;
  status: UploadStatus;
  fileName: string;
  fileSize: number;
  createdAt: string;
  /** The next byte offset the server expects: resume starts here (a documented extension). */
  receivedBytes: number;
}

/** The server-side view for tests (`GET /_sim/uploads/{id}`). */
export interface UploadServerView extends UploadView {
  contentType: string;
  format: FileFormat;
  /** Bytes stored so far. */
  size: number;
  /** SHA-256 (hex) of the bytes stored so far. */
  sha256: string;
  /**
   * A chunk is being received now (a second chunk meanwhile is refused with 409). Tests wait on it
   * rather than on a fixed sleep, which a loaded machine does not bound.
   */
  receiving: boolean;
}

interface UploadRecord {
  uploadId: string;
  fileName: string;
  fileSize: number;
  contentType: string;
  format: FileFormat;
  createdAt: string;
  receivedBytes: number;
  path: string;
  hash: Hash;
  /** Ranges accepted so far ("start-end"), for idempotent repeats. */
  ranges: Set<string>;
  /** When processing after the last byte ends. */
  completesAt: number | undefined;
  /** A chunk is being received; a concurrent chunk is a conflict. */
  busy: boolean;
}

/** What the store needs from the simulator. */
export interface UploadStoreOptions {
  random: Random;
  maxChunkSize: number;
  /** Current processing delay (read at the last byte, so control changes apply to later uploads). */
  processingDelayMs: () => number;
  /** Parent directory for the temporary storage directory (default the OS temp dir). */
  storageDir?: string;
}

/** All uploads of one simulator, stored under one temporary directory removed on close. */
export class UploadStore {
  readonly #options: UploadStoreOptions;
  readonly #dir: string;
  readonly #uploads = new Map<string, UploadRecord>();

  private constructor(options: UploadStoreOptions, dir: string) {
    this.#options = options;
    this.#dir = dir;
  }

  /** Creates the store and its temporary directory. */
  static async create(options: UploadStoreOptions): Promise<UploadStore> {
    const dir = await mkdtemp(join(options.storageDir ?? tmpdir(), "promo-review-sim-"));
    return new UploadStore(options, dir);
  }

  /** The largest chunk a PUT may carry. */
  get maxChunkSize(): number {
    return this.#options.maxChunkSize;
  }

  /** Validates an initiation request and creates a `pending` upload. */
  async initiate(body: Record<string, unknown>): Promise<UploadView> {
    const problems = new Problems();
    const { fileName, fileSize, contentType } = body;
    if (!isNonEmptyString(fileName)) problems.field("fileName", "must be a non-empty string");
    if (typeof fileSize !== "number" || !Number.isSafeInteger(fileSize) || fileSize < 1) {
      problems.field("fileSize", "must be a positive integer (bytes)");
    }
    const format = isNonEmptyString(contentType) ? formatOfContentType(contentType) : undefined;
    if (!isNonEmptyString(contentType)) problems.field("contentType", "must be a non-empty MIME type");
    else if (!format) problems.field("contentType", `unsupported content type ${contentType}`);
    problems.throwIfAny();
    const size = fileSize as number;
    if (format && size > format.limit) {
      throw new ApiError(
        "PAYLOAD_TOO_LARGE",
        `fileSize ${size} exceeds the ${format.format} limit of ${format.limit} bytes`,
        [{ type: "constraint_violation", constraint: "max_file_size", limit: format.limit, actual: size }],
      );
    }
    const record = await this.#add(fileName as string, size, contentType as string, format!.format);
    return this.view(record.uploadId);
  }

  async #add(
    fileName: string,
    fileSize: number,
    contentType: string,
    format: FileFormat,
  ): Promise<UploadRecord> {
    const uploadId = this.#options.random.uuid();
    const path = join(this.#dir, uploadId);
    // The file exists from the start so chunks can be written at their offset ("r+").
    await writeFile(path, "");
    const record: UploadRecord = {
      uploadId,
      fileName,
      fileSize,
      contentType,
      format,
      createdAt: new Date().toISOString(),
      receivedBytes: 0,
      path,
      hash: createHash("sha256"),
      ranges: new Set(),
      completesAt: undefined,
      busy: false,
    };
    this.#uploads.set(uploadId, record);
    return record;
  }

  /**
   * Stores an upload that is complete at once: a link capture's screenshot or an import's result,
   * which the service produces itself.
   */
  async addCompleted(
    fileName: string,
    contentType: string,
    format: FileFormat,
    bytes: Buffer,
  ): Promise<string> {
    const record = await this.#add(fileName, bytes.length, contentType, format);
    await writeFile(record.path, bytes);
    record.hash.update(bytes);
    record.receivedBytes = bytes.length;
    record.ranges.add(`0-${bytes.length - 1}`);
    record.completesAt = Date.now();
    return record.uploadId;
  }

  #get(uploadId: string): UploadRecord {
    const record = this.#uploads.get(uploadId);
    if (!record) throw new ApiError("NOT_FOUND", `Upload ${uploadId} not found`);
    return record;
  }

  /** True when an upload with this id exists. */
  has(uploadId: string): boolean {
    return this.#uploads.has(uploadId);
  }

  /** The status of an upload now: completion after the processing delay is computed on read. */
  statusOf(uploadId: string): UploadStatus {
    const record = this.#get(uploadId);
    if (record.receivedBytes === 0) return "pending";
    if (record.completesAt === undefined || Date.now() < record.completesAt) return "uploading";
    // The spec never says what makes processing fail; a file named for it lets clients test that path.
    return record.fileName.includes(FAILING_NAME_MARK) ? "failed" : "completed";
  }

  /** The public upload object. */
  view(uploadId: string): UploadView {
    const r = this.#get(uploadId);
    return {
      uploadId: r.uploadId,
      status: this.statusOf(uploadId),
      fileName: r.fileName,
      fileSize: r.fileSize,
      createdAt: r.createdAt,
      receivedBytes: r.receivedBytes,
    };
  }

  /** The server-side view, with the SHA-256 of the stored bytes. */
  serverView(uploadId: string): UploadServerView {
    const r = this.#get(uploadId);
    return {
      ...this.view(uploadId),
      contentType: r.contentType,
      format: r.format,
      size: r.receivedBytes,
      // copy(): the running hash must keep accepting chunks after this read.
      sha256: r.hash.copy().digest("hex"),
      receiving: r.busy,
    };
  }

  /**
   * Receives one chunk. Chunks must be in order and contiguous; a repeat of a range already received
   * is accepted without rewriting. Nothing is committed unless the whole chunk arrived, so a chunk
   * cut off mid-body leaves the upload exactly as it was.
   */
  async putChunk(
    req: IncomingMessage,
    uploadId: string,
  ): Promise<{ uploadId: string; status: UploadStatus; receivedBytes: number }> {
    const record = this.#get(uploadId);
    const { range, length } = chunkRangeOf(req, record.fileSize, this.#options.maxChunkSize);
    if (record.busy) throw new ApiError("CONFLICT", "Another chunk of this upload is being received");
    const key = `${range.start}-${range.end}`;
    const repeat = range.end < record.receivedBytes && record.ranges.has(key);
    if (!repeat && range.start !== record.receivedBytes) {
      throw new ApiError(
        "CONFLICT",
        `Chunks must be contiguous: expected a chunk starting at byte ${record.receivedBytes}`,
        [
          {
            type: "constraint_violation",
            constraint: "content_range_start",
            limit: record.receivedBytes,
            actual: range.start,
          },
        ],
      );
    }
    record.busy = true;
    try {
      const received = repeat ? await drain(req) : await this.#write(req, record, range.start, length);
      if (received.count !== length) {
        throw fieldError(
          "Content-Range",
          `the body has ${received.count} bytes but the range covers ${length}`,
        );
      }
      if (!repeat && received.hash) {
        record.hash = received.hash;
        record.receivedBytes = range.end + 1;
        record.ranges.add(key);
        if (record.receivedBytes === record.fileSize) {
          record.completesAt = Date.now() + this.#options.processingDelayMs();
        }
      }
    } finally {
      record.busy = false;
    }
    return { uploadId, status: this.statusOf(uploadId), receivedBytes: record.receivedBytes };
  }

  /**
   * Streams the body to the file at `start` and into a copy of the running hash. The pipeline
   * respects backpressure, so memory stays at {@link WRITE_BATCH_BYTES} plus a few socket reads
   * whatever the chunk size. Bytes past `length` are counted but not written, so the request is still
   * answered (with 400) instead of the connection being torn down.
   */
  async #write(
    req: IncomingMessage,
    record: UploadRecord,
    start: number,
    length: number,
  ): Promise<{ count: number; hash: Hash }> {
    const hash = record.hash.copy();
    let count = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        const room = length - count;
        count += chunk.length;
        const kept = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
        if (kept.length > 0) hash.update(kept);
        callback(null, kept.length > 0 ? kept : undefined);
      },
    });
    const file = createWriteStream(record.path, { flags: "r+", start, highWaterMark: WRITE_BATCH_BYTES });
    await pipeline(req, limiter, file);
    return { count, hash };
  }

  /** Forgets every upload and deletes their bytes. */
  async reset(): Promise<void> {
    const paths = [...this.#uploads.values()].map((r) => r.path);
    this.#uploads.clear();
    await Promise.all(paths.map((p) => rm(p, { force: true })));
  }

  /** Deletes the storage directory. */
  async close(): Promise<void> {
    this.#uploads.clear();
    await rm(this.#dir, { recursive: true, force: true });
  }
}

async function drain(req: IncomingMessage): Promise<{ count: number; hash: undefined }> {
  let count = 0;
  for await (const chunk of req) count += (chunk as Buffer).length;
  return { count, hash: undefined };
}

/**
 * The byte range a chunk PUT claims, checked against the declared file size, the chunk limit and the
 * body's Content-Length before a byte is read: a wrong range is refused with the field it breaks.
 */
function chunkRangeOf(
  req: IncomingMessage,
  fileSize: number,
  maxChunkSize: number,
): { range: { start: number; end: number }; length: number } {
  const header = req.headers["content-range"];
  const range = parseContentRange(Array.isArray(header) ? header[0] : header);
  if (typeof range === "string") throw fieldError("Content-Range", range);
  if (range.total !== undefined && range.total !== fileSize) {
    throw fieldError(
      "Content-Range",
      `total ${range.total} disagrees with the declared fileSize ${fileSize}`,
    );
  }
  if (range.end >= fileSize) {
    throw fieldError("Content-Range", `end ${range.end} is beyond the declared fileSize ${fileSize}`);
  }
  const length = range.end - range.start + 1;
  if (length > maxChunkSize) {
    throw new ApiError("PAYLOAD_TOO_LARGE", `A chunk may carry at most ${maxChunkSize} bytes`, [
      {
        type: "constraint_violation",
        constraint: "max_chunk_size",
        limit: maxChunkSize,
        actual: length,
      },
    ]);
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) !== length) {
    throw fieldError("Content-Range", `the body has ${declared} bytes but the range covers ${length}`);
  }
  return { range, length };
}
