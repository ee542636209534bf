/** Starts a simulator on 127.0.0.1 and describes it to scenarios. */
import { type Simulator, startSimulator } from "@promo-review/simulator";
import type { SimulatorEndpoints } from "../../scenarios/types.ts";

/** The file service's `maxChunkSize` in these tests. */
export const UPLOAD_CHUNK = 16 * 1024 * 1024;

export async function startProofSimulator(): Promise<Simulator> {
  // Fast processing so a run spends its time in the runtime, not in waits.
  // Chunks of 16 MiB, so the 60 MiB upload takes four PUTs at the size the service announces.
  return startSimulator({
    uploadProcessingDelayMs: 20,
    evaluationDelayMs: 20,
    linkImportDelayMs: 20,
    maxChunkSize: UPLOAD_CHUNK,
  });
}

export function endpointsOf(sim: Simulator): SimulatorEndpoints {
  return {
    baseUrl: sim.baseUrl,
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    webhookSecret: sim.webhookSecret,
    reference: {
      channels: sim.reference.channels.map((c) => ({ id: c.id })),
      jurisdictions: sim.reference.jurisdictions.map((j) => ({ id: j.id })),
      products: sim.reference.products.map((p) => ({ id: p.id })),
    },
  };
}
