import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Simulator } from "@promo-review/simulator";
import { type ClientConfig, createClient } from "../../src/index.js";

/** A client for one simulator (a private budget unless a test asks for the shared one). */
export function clientFor(sim: Simulator, config: ClientConfig = {}) {
  return createClient({
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    baseUrl: sim.baseUrl,
    filesUrl: sim.filesUrl,
    webhookSecret: sim.webhookSecret,
    rateBudget: { safetyMarginMs: 0 },
    env: {},
    ...config,
  });
}

/** The text-promotion fields every flow needs, from the simulator's seeded reference data. */
export function promotionFields(sim: Simulator) {
  return {
    promotionName: "Spring savings",
    productIds: [sim.reference.products[0]!.id],
    channelIds: [sim.reference.channels[0]!.id],
    jurisdictionId: sim.reference.jurisdictions[0]!.id,
    metadata: { campaign: "spring" },
  };
}

/** A local webhook receiver on 127.0.0.1 serving a Node handler; registered with the simulator. */
export async function webhookReceiver(
  sim: Simulator,
  handler: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => unknown,
) {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  sim.control.addWebhookEndpoint(url);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
