/**
 * Link capture: generic URLs are "screenshotted" synchronously (201); design-tool frames and
 * cloud-drive files are imported asynchronously (202 with a statusUrl). The statusUrl carries a
 * signed query with percent-encoded characters and must be used exactly as returned: a poll whose
 * query is not byte-identical is 404, which catches clients that decode and re-encode it.
 */
import { createHmac } from "node:crypto";
import { ApiError, fieldError, type Reply } from "./envelope.js";
import type { FileFormat } from "./formats.js";
import { formatOfFileName } from "./formats.js";
import { isNonEmptyString } from "./problems.js";
import type { Random } from "./random.js";
import type { UploadStore } from "./uploads.js";

/** A frame of a design file. */
export interface DesignFrame {
  id: string;
  name: string;
  width: number;
  height: number;
}

// The spec's "Limits" row "design frame size", copied here and not imported from the client packages: the simulator is written from the spec, not from them (ARCHITECTURE.md, "Rules behind the larger choices"), so a client that misreads the spec is caught, not copied.
/** Largest frame that can be imported (about 6 megapixels). */
export const MAX_FRAME_PIXELS = 6_000_000;

/** The drive providers and the `source` value naming each. */
export type DriveSource = "google-drive" | "onedrive" | "dropbox";

/** What a link is, by host and path. */
export type LinkKind =
  | { kind: "generic" }
  | { kind: "design"; fileKey: string }
  | { kind: "drive"; source: DriveSource; fileFormat: FileFormat | undefined };

const DRIVE_HOSTS: Record<string, DriveSource> = {
  "drive.google.com": "google-drive",
  "docs.google.com": "google-drive",
  "onedrive.live.com": "onedrive",
  "www.dropbox.com": "dropbox",
};

/**
 * Classifies a link. Design: figma.com paths /file/ or /design/. Drive: Google Drive and Docs,
 * OneDrive, Dropbox. Native Google documents, sheets and slides convert to pdf; other drive files take
 * their format from the extension (Google Drive and OneDrive share links without one are pdf).
 */
export function classifyLink(url: URL): LinkKind {
  const host = url.hostname.toLowerCase();
  const design = /^\/(file|design)\/([^/]+)/.exec(url.pathname);
  if ((host === "figma.com" || host === "www.figma.com") && design)
    return { kind: "design", fileKey: design[2]! };
  // Own keys only: a host such as "constructor" is a generic link, not a lookup into Object.prototype.
  const source = Object.hasOwn(DRIVE_HOSTS, host) ? DRIVE_HOSTS[host] : undefined;
  if (!source) return { kind: "generic" };
  if (host === "docs.google.com") return { kind: "drive", source, fileFormat: "pdf" };
  const last = url.pathname.split("/").filter(Boolean).pop() ?? "";
  const byName = formatOfFileName(last);
  return { kind: "drive", source, fileFormat: byName ?? (source === "dropbox" ? undefined : "pdf") };
}

function parseLinkUrl(value: unknown): URL {
  let url: URL | undefined;
  try {
    url = isNonEmptyString(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw fieldError("url", "must be an http(s) URL");
  if (url.pathname.includes("/private/")) {
    throw new ApiError("FORBIDDEN", "The file is not reachable: it must be shared with anyone with the link");
  }
  return url;
}

/** The frames of a design file: deterministic per seed and file, one of them too large to import. */
export function framesOf(fileKey: string, seed: number): DesignFrame[] {
  const h = createHmac("sha256", String(seed)).update(fileKey).digest();
  return [
    { id: "1:2", name: "Home", width: 1440, height: 900 + (h[0] ?? 0) },
    { id: "1:3", name: "Mobile", width: 390, height: 844 },
    { id: "2:5", name: "Banner", width: 1200 + (h[1] ?? 0), height: 628 },
    { id: "9:99", name: "Poster (oversized)", width: 4000, height: 2000 },
  ];
}

interface ImportRecord {
  importId: string;
  query: string;
  source: string;
  fileFormat: FileFormat;
  completesAt: number;
  finalUploadId: string | undefined;
}

/** Minimal bytes standing in for the captured content of each format. */
const SAMPLE_BYTES: Record<string, { contentType: string; extension: string; bytes: Buffer }> = {
  image: {
    contentType: "image/png",
    extension: "png",
    bytes: Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    ),
  },
  pdf: {
    contentType: "application/pdf",
    extension: "pdf",
    bytes: Buffer.from("%PDF-1.4\n%simulated import\n%%EOF\n"),
  },
  video: { contentType: "video/mp4", extension: "mp4", bytes: Buffer.from("simulated video") },
  audio: { contentType: "audio/mpeg", extension: "mp3", bytes: Buffer.from("simulated audio") },
  document: { contentType: "text/plain", extension: "txt", bytes: Buffer.from("simulated document") },
};

/** What link capture needs from the simulator. */
export interface LinkOptions {
  random: Random;
  seed: number;
  uploads: UploadStore;
  importDelayMs: () => number;
}

/** Link captures and imports of one simulator. */
export class LinkCapture {
  readonly #options: LinkOptions;
  readonly #signingKey: Buffer;
  readonly #imports = new Map<string, ImportRecord>();

  constructor(options: LinkOptions) {
    this.#options = options;
    this.#signingKey = options.random.bytes(32);
  }

  async #store(format: FileFormat, name: string): Promise<string> {
    const sample = SAMPLE_BYTES[format]!;
    return this.#options.uploads.addCompleted(
      `${name}.${sample.extension}`,
      sample.contentType,
      format,
      sample.bytes,
    );
  }

  #frame(fileKey: string, frameId: string): DesignFrame {
    const frame = framesOf(fileKey, this.#options.seed).find((f) => f.id === frameId);
    if (!frame) throw fieldError("designFrameId", `frame ${frameId} not found in the file`);
    const pixels = frame.width * frame.height;
    if (pixels > MAX_FRAME_PIXELS) {
      throw new ApiError(
        "VALIDATION_ERROR",
        `Frame ${frameId} is ${pixels} pixels; frames over about 6 megapixels cannot be imported`,
        [
          { type: "field_error", field: "designFrameId", message: "frame too large to import" },
          {
            type: "constraint_violation",
            constraint: "max_frame_pixels",
            limit: MAX_FRAME_PIXELS,
            actual: pixels,
          },
        ],
      );
    }
    return frame;
  }

  /** `POST /v1/links`. */
  async capture(body: Record<string, unknown>): Promise<Reply> {
    const url = parseLinkUrl(body["url"]);
    const kind = classifyLink(url);
    if (kind.kind === "generic") {
      const uploadId = await this.#store("image", "screenshot");
      return { status: 201, body: { uploadId, fileFormat: "image" } };
    }
    if (kind.kind === "design") {
      const given = body["designFrameId"];
      if (given !== undefined && !isNonEmptyString(given))
        throw fieldError("designFrameId", "must be a non-empty string");
      // Figma links write node ids with a hyphen (node-id=1-2) where the API uses a colon (1:2).
      const nodeId = url.searchParams.get("node-id")?.replace(/-/g, ":");
      const frameId = (given as string | undefined) ?? nodeId;
      if (!frameId) {
        throw fieldError(
          "designFrameId",
          "a frame must be identified; pass designFrameId or use frame discovery",
        );
      }
      this.#frame(kind.fileKey, frameId);
      const record = this.#startImport("figma", "image");
      return {
        status: 202,
        body: { uploadId: record.importId, statusUrl: this.#statusUrl(record), fileFormat: "image" },
      };
    }
    if (!kind.fileFormat) throw fieldError("url", "the linked file's type is not supported");
    const record = this.#startImport(kind.source, kind.fileFormat);
    return {
      status: 202,
      body: {
        uploadId: record.importId,
        statusUrl: this.#statusUrl(record),
        fileFormat: kind.fileFormat,
        source: kind.source,
      },
    };
  }

  #startImport(source: string, fileFormat: FileFormat): ImportRecord {
    const importId = this.#options.random.uuid();
    const mac = createHmac("sha256", this.#signingKey).update(`${importId}.${source}`).digest("base64");
    // The raw token always holds '+' and '/', so its encoded form holds %2B and %2F.
    const sig = `v1+${mac}/`;
    const record: ImportRecord = {
      importId,
      query: `source=${source}&sig=${encodeURIComponent(sig)}`,
      source,
      fileFormat,
      completesAt: Date.now() + this.#options.importDelayMs(),
      finalUploadId: undefined,
    };
    this.#imports.set(importId, record);
    return record;
  }

  #statusUrl(record: ImportRecord): string {
    return `/v1/links/imports/${record.importId}?${record.query}`;
  }

  /** `GET {statusUrl}`: the raw query must be exactly the one issued. */
  async poll(importId: string, rawQuery: string): Promise<Record<string, unknown>> {
    const record = this.#imports.get(importId);
    if (!record || record.query !== rawQuery) throw new ApiError("NOT_FOUND", "Link import not found");
    if (Date.now() < record.completesAt) return { status: "processing" };
    // The imported file appears in the file service on the first poll after completion.
    record.finalUploadId ??= await this.#store(record.fileFormat, `import-${record.source}`);
    return { status: "completed", finalUploadId: record.finalUploadId, fileFormat: record.fileFormat };
  }

  /** `POST /v1/links/design/frames`: frame discovery for a design file. */
  frames(body: Record<string, unknown>): { frames: DesignFrame[] } {
    const url = parseLinkUrl(body["url"]);
    const kind = classifyLink(url);
    if (kind.kind !== "design") throw fieldError("url", "frame discovery needs a design-tool file link");
    return { frames: framesOf(kind.fileKey, this.#options.seed) };
  }

  /** Forgets every import. */
  reset(): void {
    this.#imports.clear();
  }
}
