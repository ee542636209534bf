/**
 * `@promo-review/sdk`, the facade: one client from the settings, a promotion created from inline text
 * with reference ids the client reads itself, and the decision of its version.
 */
import { createClient } from "@promo-review/sdk";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

export async function run({ sim }: ScenarioInput): Promise<ScenarioOutput> {
  const client = createClient({
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    baseUrl: sim.baseUrl,
    filesUrl: sim.filesUrl,
  });
  const [{ channels }, { jurisdictions }, { products }] = await Promise.all([
    client.reference.channels(),
    client.reference.jurisdictions(),
    client.reference.products(),
  ]);
  const created = await client.promotions.create({
    promotionName: "Runtime proof (facade)",
    productIds: [products[0]!.id],
    channelIds: [channels[0]!.id],
    jurisdictionId: jurisdictions[0]!.id,
    fileFormat: "text",
    content: "<p>Save 5% this spring. Capital at risk.</p>",
    metadata: { proof: "facade" },
  });
  const decision = await client.promotions.decision(created.promotionId, created.versionId);
  return {
    runtime: runtimeFingerprint(),
    promotionId: created.promotionId,
    versionId: created.versionId,
    version: created.version,
    createdCorrelationId: created.correlationId,
    decision: decision.decision,
    decisionCorrelationId: decision.correlationId,
  };
}
