/**
 * Helpers shared by the test files: a tiny JSON client for the simulator, upload and promotion
 * shortcuts, and a local webhook receiver. Test-only (excluded from the build).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "../../../../testing/wait-for.ts";
import type { Simulator } from "../../src/index.js";
import { sampleTextPromotion } from "../../src/samples.js";

/** A response read as JSON. */
export interface JsonResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary response shapes
  body: any;
}

/** Sends a request and reads its JSON body (or text when it is not JSON). */
export async function call(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON bodies (the injected HTML 502) stay text.
  }
  return { status: res.status, headers: res.headers, body };
}

/** Headers of an ordinary authenticated main-API call. */
export function mainHeaders(sim: Simulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    Authorization: `Bearer ${sim.apiKey}`,
    "X-External-User-ID": sim.externalUserId,
    "Content-Type": "application/json",
    ...extra,
  };
}

/** A main-API client bound to one simulator. */
export function mainApi(sim: Simulator, extraHeaders: Record<string, string> = {}) {
  return {
    get: (path: string) => call(`${sim.baseUrl}${path}`, { headers: mainHeaders(sim, extraHeaders) }),
    post: (path: string, body?: unknown) =>
      call(`${sim.baseUrl}${path}`, {
        method: "POST",
        headers: mainHeaders(sim, extraHeaders),
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

/** Calls the HTTP control surface. */
export function simHttp(sim: Simulator, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  return call(`${sim.baseUrl}/_sim${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Initiates an upload and returns the initiation response. */
export async function initiate(
  sim: Simulator,
  fileSize: number,
  contentType = "application/pdf",
  fileName = "file.pdf",
) {
  return call(`${sim.filesUrl}/v1/uploads`, {
    method: "POST",
    headers: mainHeaders(sim),
    body: JSON.stringify({ fileName, fileSize, contentType }),
  });
}

/** PUTs one chunk. */
export function putChunk(sim: Simulator, uploadId: string, range: string | undefined, bytes: Uint8Array) {
  const headers: Record<string, string> = { ...mainHeaders(sim), "Content-Type": "application/octet-stream" };
  if (range !== undefined) headers["Content-Range"] = range;
  return call(`${sim.filesUrl}/v1/uploads/${uploadId}`, {
    method: "PUT",
    headers,
    body: bytes as Uint8Array<ArrayBuffer>,
  });
}

/** Uploads `bytes` in one chunk and waits until the upload is completed; returns its id. */
export async function uploadCompleted(
  sim: Simulator,
  bytes: Uint8Array = Buffer.from("%PDF-1.4 test"),
): Promise<string> {
  const { body } = await initiate(sim, bytes.length);
  await putChunk(sim, body.uploadId, `bytes 0-${bytes.length - 1}/${bytes.length}`, bytes);
  await waitFor(() => sim.control.upload(body.uploadId).status === "completed");
  return body.uploadId;
}

/** A valid text-format creation body using the simulator's reference data (the exported sample). */
export function textPromotion(
  sim: Simulator,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return sampleTextPromotion(sim.reference, overrides);
}

/** Polls until a state holds (the shared helper; re-exported for the suites that import it here). */
export { waitFor };

/** A request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering with the statuses given in turn (then 200). */
export async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(statuses.shift() ?? 200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
