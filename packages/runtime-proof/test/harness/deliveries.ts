/**
 * A real webhook delivery from the simulator: a receiver on 127.0.0.1 registered as an endpoint, a text
 * promotion created and evaluated over the main API, and the delivery's headers and raw bytes kept.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Simulator, sampleTextPromotion } from "@promo-review/simulator";

export interface CapturedDelivery {
  headers: Record<string, string>;
  bodyBase64: string;
}

/** Metadata with non-ASCII text, echoed in the webhook payload, so the bytes verified are not plain ASCII. */
export const DELIVERY_METADATA = { campaign: "Été – 🎉 offre", ref: "proof-42" };

export async function captureDelivery(sim: Simulator): Promise<CapturedDelivery> {
  let resolveDelivery!: (d: CapturedDelivery) => void;
  const delivered = new Promise<CapturedDelivery>((ok) => {
    resolveDelivery = ok;
  });
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(204).end();
      const headers: Record<string, string> = {};
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type"]) {
        const value = req.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      resolveDelivery({ headers, bodyBase64: Buffer.concat(chunks).toString("base64") });
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
  try {
    sim.control.addWebhookEndpoint(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`);
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${sim.baseUrl}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${sim.apiKey}`,
          "x-external-user-id": sim.externalUserId,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const created = await api(
      "/v1/promotions",
      sampleTextPromotion(sim.reference, { promotionName: "Runtime proof", metadata: DELIVERY_METADATA }),
    );
    await api(`/v1/promotions/${created["promotionId"]}/versions/${created["versionId"]}/evaluate`, {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error("no webhook delivery within 15 s")), 15_000);
    });
    try {
      return await Promise.race([delivered, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await new Promise<void>((ok) => {
      receiver.close(() => ok());
      receiver.closeAllConnections();
    });
  }
}
