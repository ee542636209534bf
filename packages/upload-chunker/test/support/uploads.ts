/**
 * Helpers shared by the test files: a simulator with an uploader bound to it, deterministic bytes in
 * every source shape, and the SHA-256 the simulator must end up with. Test-only (not built).
 */
import { createHash } from "node:crypto";
import { type Simulator, type SimulatorOptions, startSimulator } from "@promo-review/simulator";
import { expect } from "vitest";
import { withSelectedProfile } from "../../../../testing/simulator.ts";
import {
  createUploader,
  fromStream,
  type Uploader,
  type UploaderOptions,
  type UploadSource,
} from "../../src/index.js";

/** A running simulator and an uploader for it (API-key credentials). */
export async function simulatorWithUploader(
  simulatorOptions: SimulatorOptions = {},
  uploaderOptions: Partial<UploaderOptions> = {},
) {
  const sim = await startSimulator(withSelectedProfile({ uploadProcessingDelayMs: 5, ...simulatorOptions }));
  const uploader = createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    pollIntervalMs: 5,
    retry: { baseDelayMs: 2, maxDelayMs: 20 },
    ...uploaderOptions,
  });
  return { sim, uploader };
}

/** An uploader for `sim` (API-key credentials, fast polls) with these options over the defaults. */
export function uploaderFor(sim: Simulator, options: Partial<UploaderOptions> = {}): Uploader {
  return createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    pollIntervalMs: 5,
    ...options,
  });
}

/**
 * The method of a `fetch` call in either form it takes: a `Request` (how ky sends), or a URL with
 * `init` (how a stream body is sent, see `@promo-review/http`).
 */
export function methodOf(input: RequestInfo | URL, init?: RequestInit): string {
  return (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
}

/** `size` deterministic bytes (a cheap generator, so large sizes cost little time). */
export function patterned(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 255;
  }
  return bytes;
}

/** Hex SHA-256. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Cuts `bytes` into pieces of varying sizes (as a network or file stream would deliver them). */
export function piecesOf(
  bytes: Uint8Array,
  pieceSizes: readonly number[] = [7, 4096, 65_536, 1000],
): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = Math.max(1, pieceSizes[i % pieceSizes.length]!);
    pieces.push(bytes.slice(at, at + size));
    at += size;
  }
  return pieces;
}

/** A web ReadableStream over `bytes`, delivered in uneven pieces. */
export function webStreamOf(bytes: Uint8Array, pieceSizes?: readonly number[]): ReadableStream<Uint8Array> {
  const pieces = piecesOf(bytes, pieceSizes);
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece) controller.enqueue(piece);
      else controller.close();
    },
  });
}

/** An async iterable over `bytes`, delivered in uneven pieces. */
export async function* iterableOf(
  bytes: Uint8Array,
  pieceSizes?: readonly number[],
): AsyncGenerator<Uint8Array> {
  for (const piece of piecesOf(bytes, pieceSizes)) yield piece;
}

/** Every in-memory source kind over the same bytes, with the `size` a stream needs declared. */
export const SOURCE_KINDS: Record<string, (bytes: Uint8Array) => { source: UploadSource; size?: number }> = {
  Blob: (bytes) => ({ source: new Blob([bytes as BlobPart]) }),
  File: (bytes) => ({ source: new File([bytes as BlobPart], "x.pdf", { lastModified: 1 }) }),
  Uint8Array: (bytes) => ({ source: bytes }),
  ArrayBuffer: (bytes) => ({ source: bytes.slice().buffer }),
  DataView: (bytes) => ({ source: new DataView(bytes.slice().buffer) }),
  ReadableStream: (bytes) => ({ source: fromStream(webStreamOf(bytes)), size: bytes.length }),
  AsyncIterable: (bytes) => ({ source: fromStream(iterableOf(bytes)), size: bytes.length }),
};

/**
 * The fault mix of the "20% of chunk PUTs failing" tests: a 503, a connection reset mid-body, a 429
 * with Retry-After 0 and a proxy's HTML 502, each on 5.5% of chunk PUTs (seeded from `seed`).
 */
export function addFailingChunkFaults(sim: Simulator, options: { resetAfterBytes: number; seed: number }) {
  for (const [i, fault] of [
    { kind: "status", status: 503 },
    { kind: "reset", afterBytes: options.resetAfterBytes },
    { kind: "rate-limit", retryAfterSeconds: 0 },
    { kind: "html-502" },
  ].entries()) {
    sim.control.addFault({
      route: "PUT /v1/uploads/*",
      probability: 0.055,
      seed: options.seed + i,
      ...fault,
    } as never);
  }
}

/** Every range was stored once, and each extra send of it is one failure the log shows. */
export function expectSendsExplainedByFailures(
  sim: Simulator,
  uploadId: string,
  size: number,
  chunk: number,
) {
  const byRange = new Map<string, { ok: number; failed: number }>();
  for (const put of chunkPuts(sim, uploadId)) {
    const entry = byRange.get(put.range) ?? { ok: 0, failed: 0 };
    if (put.status === 200) entry.ok++;
    else entry.failed++;
    byRange.set(put.range, entry);
  }
  const expected = [];
  for (let at = 0; at < size; at += chunk)
    expected.push(`bytes ${at}-${Math.min(size, at + chunk) - 1}/${size}`);
  expect([...byRange.keys()]).toEqual(expected);
  for (const [range, { ok }] of byRange) expect({ range, ok }).toEqual({ range, ok: 1 });
  return [...byRange.values()].reduce((sum, r) => sum + r.failed, 0);
}

/**
 * The simulator's record of chunk PUTs for one upload, oldest first. The status is given in the
 * default reading's numbers, because a chunk PUT's statuses are not shown (docs/gaps.md rows 12 and
 * 21): a stored chunk (any 2xx, or a resumable 308) is 200, a range conflict (409 or 416) is 409.
 */
export function chunkPuts(sim: Simulator, uploadId: string) {
  return sim.control
    .requests()
    .filter((r) => r.service === "files" && r.method === "PUT" && r.path === `/v1/uploads/${uploadId}`)
    .map((r) => ({
      range: r.headers["content-range"] ?? "",
      status: chunkMeaning(r.status),
      fault: r.fault?.kind,
    }));
}

function chunkMeaning(status: number | null): number | null {
  if (status === null) return null;
  if ((status >= 200 && status < 300) || status === 308) return 200;
  return status === 416 ? 409 : status;
}

/** What a simulator started in a child process tells about itself. */
export interface ChildSimulator {
  baseUrl: string;
  filesUrl: string;
  apiKey: string;
  externalUserId: string;
  /** Adds a fault through the HTTP control surface. */
  addFault(spec: Record<string, unknown>): Promise<void>;
  /** The server-side view of an upload. */
  upload(uploadId: string): Promise<{ status: string; receivedBytes: number; sha256: string; size: number }>;
  close(): Promise<void>;
}

/** Starts a simulator in a child process (see test/fixtures/simulator.mjs). */
export async function childSimulator(options: SimulatorOptions = {}): Promise<ChildSimulator> {
  const { spawn } = await import("node:child_process");
  const { join } = await import("node:path");
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "..", "fixtures", "simulator.mjs"), JSON.stringify(options)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (data: Buffer) => {
      text += data.toString();
      if (text.includes("\n")) resolve(text.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`the simulator process exited with ${code}`)));
  });
  const info = JSON.parse(line) as {
    baseUrl: string;
    filesUrl: string;
    apiKey: string;
    externalUserId: string;
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${info.baseUrl}/_sim${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return response.json();
  };
  return {
    ...info,
    addFault: async (spec) => {
      await control("POST", "/faults", spec);
    },
    upload: (uploadId) => control("GET", `/uploads/${uploadId}`),
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
