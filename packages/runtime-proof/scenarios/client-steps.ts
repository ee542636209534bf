/**
 * One step of the "one store shares the whole client" proofs (issue 32), done by a client that
 * `createClient({ store })` made on a shared backend. The same steps run in a Node process, an
 * edge-runtime sandbox, a deno process and a Worker (each its own memory), so what one saw of another
 * it can only have seen through the store.
 */
import { createClient, type Store, startUpload } from "@promo-review/sdk";
import type { SimulatorEndpoints } from "./types.ts";

/** What one step does; the test runs them one after another in different processes or isolates. */
export type ClientStep =
  /** Takes admissions from the main API's budget until it refuses: the shared windows fill. */
  | { step: "spend" }
  /** Tries one admission: refused when another process filled the windows. */
  | { step: "try" }
  /** Verifies one delivery: accepted once, whichever process receives it. */
  | {
      step: "verify";
      url: string;
      delivery: { method: string; headers: Record<string, string>; body: string };
    }
  /** Uploads `fileSize` bytes and stops once `stopAt` bytes are acknowledged (a process that ends). */
  | { step: "upload-part"; fileSize: number; stopAt: number }
  /** Uploads the same bytes: resumed from the service's offset when another process left a resume point. */
  | { step: "upload"; fileSize: number };

type Client = ReturnType<typeof createClient>;

/** The client every step runs on: the simulator's settings, nothing read from the environment, `store` shared. */
export function clientOn(sim: SimulatorEndpoints, store: Store): Client {
  return createClient({
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    baseUrl: sim.baseUrl,
    filesUrl: sim.filesUrl,
    webhookSecret: sim.webhookSecret,
    env: {},
    store,
  });
}

/** The same bytes in every process: the same file, the same fingerprint. */
const bytesOf = (size: number) => new Uint8Array(size).map((_, i) => (i * 31) % 251);

/** Runs `input` on `client`; answers plain JSON. */
export async function clientStep(
  client: Client,
  baseUrl: string,
  input: ClientStep,
): Promise<Record<string, unknown>> {
  const GET = { method: "GET", url: `${baseUrl}/v1/channels` };
  const budget = client.budget;
  if (budget === undefined) throw new Error("the client has no budget: createClient({ store }) gives it one");
  const take = () =>
    budget.acquire(GET, { maxWaitMs: 500 }).then(
      () => undefined,
      (e: { code?: string }) => e,
    );
  switch (input.step) {
    case "spend": {
      let admitted = 0;
      for (;;) {
        const error = await take();
        if (error !== undefined) return { admitted, code: error.code };
        admitted++;
      }
    }
    case "try": {
      const error = await take();
      return { refused: error !== undefined, code: error?.code };
    }
    case "verify": {
      const outcome = await client.webhooks.verify(new Request(input.url, input.delivery)).then(
        () => "accepted",
        (e: { reason?: string; code?: string }) => e.reason ?? e.code,
      );
      return { outcome };
    }
    case "upload-part": {
      const upload = startUpload(client.uploads, bytesOf(input.fileSize), {
        fileName: "shared.pdf",
        contentType: "application/pdf",
      });
      upload.on("chunk", (c) => {
        if (c.receivedBytes >= input.stopAt) upload.abort();
      });
      await upload.done.catch(() => {});
      return { uploadId: upload.uploadId };
    }
    case "upload": {
      const result = await client.uploads.upload(bytesOf(input.fileSize), {
        fileName: "shared.pdf",
        contentType: "application/pdf",
      });
      return { uploadId: result.uploadId, resumedFrom: result.resumedFrom ?? null };
    }
  }
}
