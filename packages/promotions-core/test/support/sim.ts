/**
 * Test-only helpers (excluded from the build): a simulator per suite, a client bound to it, uploads
 * made through the file service's HTTP API, and the request log.
 */
import { type Simulator, sampleTextPromotion } from "@promo-review/simulator";
import { createUploader } from "@promo-review/upload-chunker";
import { createPromotionsClient, type PromotionsClientOptions } from "../../src/promotions.js";
import type { CreatePromotionRequest } from "../../src/types.js";

/** A client for the simulator's main API. */
export function clientFor(sim: Simulator, options: Partial<PromotionsClientOptions> = {}) {
  return createPromotionsClient({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    ...options,
  });
}

const fileHeaders = (sim: Simulator) => ({
  Authorization: `Bearer ${sim.apiKey}`,
  "X-External-User-ID": sim.externalUserId,
});

/**
 * Starts an upload on the file service and sends its bytes; it completes after the simulator's
 * processing delay. With `send: false` the bytes are never sent, so it stays pending; a file name
 * containing `fail-processing` makes the simulator fail it after processing.
 */
export async function startUpload(
  sim: Simulator,
  options: { send?: boolean; fileName?: string } = {},
): Promise<string> {
  const bytes = new TextEncoder().encode("%PDF-1.4 promotion");
  const init = await fetch(`${sim.filesUrl}/v1/uploads`, {
    method: "POST",
    headers: { ...fileHeaders(sim), "Content-Type": "application/json" },
    body: JSON.stringify({
      fileName: options.fileName ?? "flyer.pdf",
      fileSize: bytes.length,
      contentType: "application/pdf",
    }),
  });
  const { uploadId } = (await init.json()) as { uploadId: string };
  if (options.send === false) return uploadId;
  const put = await fetch(`${sim.filesUrl}/v1/uploads/${uploadId}`, {
    method: "PUT",
    headers: { ...fileHeaders(sim), "Content-Range": `bytes 0-${bytes.length - 1}/${bytes.length}` },
    body: bytes,
  });
  if (!put.ok) throw new Error(`chunk PUT failed: ${put.status}`);
  return uploadId;
}

/** Waits until the simulator reports the upload completed (test setup only). */
export async function uploadCompleted(sim: Simulator): Promise<string> {
  const uploadId = await startUpload(sim);
  for (let i = 0; i < 500 && sim.control.upload(uploadId).status !== "completed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return uploadId;
}

/** A valid text-format creation body with the simulator's reference ids (the simulator's sample). */
export function simTextBody(sim: Simulator, overrides: Record<string, unknown> = {}): CreatePromotionRequest {
  return sampleTextPromotion(sim.reference, overrides) as CreatePromotionRequest;
}

/** The main-API requests the simulator saw for a method and path. */
export function requestsTo(sim: Simulator, method: string, path: string | RegExp) {
  return sim.control
    .requests()
    .filter((r) => r.method === method && (typeof path === "string" ? r.path === path : path.test(r.path)));
}

/** upload-chunker's waiter, as the facade injects it: reads the file service's status (no main-API budget). */
export function chunkerWaiter(sim: Simulator) {
  const uploader = createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
  });
  return async (uploadIds: string[], { signal }: { signal?: AbortSignal }) => {
    await Promise.all(uploadIds.map((id) => uploader.waitForCompletion(id, { pollIntervalMs: 20, signal })));
  };
}
