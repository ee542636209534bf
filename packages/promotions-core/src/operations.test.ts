/**
 * The declarations are what the client runs: each operation's request leaves with the declared method
 * and path template, and the simulator's answer has one of the declared statuses and keeps the
 * declared response schema. Real HTTP against the simulator.
 */
import type { OperationDeclaration } from "@promo-review/http";
import { startSimulator } from "@promo-review/simulator";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, simTextBody } from "../test/support/sim.js";
import * as operations from "./operations/index.js";

const sim = useSimulator(startSimulator, { seed: 34, evaluationDelayMs: 20 });

/** Every request the client made, as the observer saw it: its method, template and status. */
function observedClient() {
  const seen: { method: string; urlTemplate: string | undefined; status: number | undefined }[] = [];
  const client = clientFor(sim(), {
    telemetry: {
      requestStarted: ({ method, urlTemplate }) => {
        const entry = { method, urlTemplate, status: undefined as number | undefined };
        seen.push(entry);
        return {
          ended: ({ status }) => {
            entry.status = status;
          },
        };
      },
    },
  });
  return { client, seen };
}

describe("each declared operation is run as declared, and the service answers as declared", () => {
  it("create, get, createVersion, submit, decision, evaluate, evaluation", async () => {
    const { client, seen } = observedClient();
    const answers = new Map<OperationDeclaration, unknown>();
    const created = await client.create(simTextBody(sim()));
    answers.set(operations.createPromotion, created);
    const { promotionId, versionId } = created;
    answers.set(operations.getPromotion, await client.get(promotionId));
    answers.set(
      operations.createVersion,
      await client.createVersion(promotionId, { fileFormat: "text", content: "Version two" }),
    );
    answers.set(operations.submitVersion, await client.submit(promotionId, versionId));
    answers.set(operations.getDecision, await client.decision(promotionId, versionId));
    const started = await client.evaluate(promotionId, versionId);
    answers.set(operations.startEvaluation, started);
    answers.set(
      operations.getEvaluation,
      await client.evaluation(promotionId, versionId, started.evaluationId),
    );
    const declared = Object.values(operations) as OperationDeclaration<unknown, v.GenericSchema>[];
    expect(new Set(declared.map((d) => d.name)).size).toBe(declared.length);
    expect([...answers.keys()].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...declared].sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(seen).toHaveLength(declared.length);
    for (const declaration of declared) {
      const request = seen.find((r) => r.method === declaration.method && r.urlTemplate === declaration.path);
      expect(request, declaration.name).toBeDefined();
      expect(declaration.statuses, declaration.name).toContain(request!.status);
      expect(v.safeParse(declaration.response, answers.get(declaration)).success, declaration.name).toBe(
        true,
      );
    }
  });
});
