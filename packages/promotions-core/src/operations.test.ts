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

/** The comment id of the finished evaluation's first issue, once the simulator has finished it. */
async function commentOf(evaluationId: string): Promise<string> {
  for (;;) {
    const evaluation = sim()
      .control.evaluations()
      .find((e) => e.evaluationId === evaluationId && e.status !== "processing");
    if (evaluation) return evaluation.issues[0]!.commentId!;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("each declared operation is run as declared, and the service answers as declared", () => {
  it("create, get, createVersion, submit, decision, evaluate, evaluation, reply, reference reads", async () => {
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
    answers.set(operations.listChannels, await client.reference.channels());
    answers.set(operations.listJurisdictions, await client.reference.jurisdictions());
    answers.set(operations.listProducts, await client.reference.products());
    answers.set(operations.listTargetMarkets, await client.reference.targetMarkets());
    const commentId = await commentOf(started.evaluationId);
    answers.set(operations.replyToComment, await client.replyToComment(commentId, { message: "Fixed." }));
    const declared = Object.values(operations) as OperationDeclaration<unknown, v.GenericSchema>[];
    expect(new Set(declared.map((d) => d.name)).size).toBe(declared.length);
    expect([...answers.keys()].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...declared].sort((a, b) => a.name.localeCompare(b.name)),
    );
    // A reply sent before its parent is indexed is answered PARENT_NOT_FOUND and sent again; every
    // other operation sends one request.
    const replies = seen.filter((r) => r.urlTemplate === operations.replyToComment.path);
    expect(seen.length - replies.length).toBe(declared.length - 1);
    for (const declaration of declared) {
      const request = seen.findLast(
        (r) => r.method === declaration.method && r.urlTemplate === declaration.path,
      );
      expect(request, declaration.name).toBeDefined();
      expect(declaration.statuses, declaration.name).toContain(request!.status);
      expect(v.safeParse(declaration.response, answers.get(declaration)).success, declaration.name).toBe(
        true,
      );
    }
  });
});
