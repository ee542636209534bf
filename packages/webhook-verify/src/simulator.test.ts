import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Simulator, sampleTextPromotion, startSimulator } from "@promo-review/simulator";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readingOf, withSelectedProfile } from "../../../testing/simulator.ts";
import { simCall as callSim } from "../test/support/sim.js";
import {
  createWebhookVerifier,
  type EvaluationCompletedEvent,
  isEvaluationCompleted,
  type WebhookHandlerFn,
} from "./index.node.js";

// Two webhookSecret: the simulator signs with both, as a sender does during a rotation; each receiver
// below is configured with the new one only.
const OLD = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NEW = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=";

let sim: Simulator;
const servers: Server[] = [];

beforeAll(async () => {
  sim = await startSimulator(
    withSelectedProfile({
      seed: 7,
      evaluationDelayMs: 20,
      webhookSecrets: [OLD, NEW],
      webhookRetryDelaysMs: [50, 50, 50],
    }),
  );
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await sim.control.reset();
});
afterAll(() => sim.close());

/** A call to this file's simulator (test/support/sim.ts). */
const simCall = (method: string, path: string, body?: unknown) => callSim(sim, method, path, body);

/** A receiver on 127.0.0.1 using the Node adapter, registered with the simulator over its control API. */
async function receiver(fn: WebhookHandlerFn, webhookSecret: string | string[] = NEW): Promise<void> {
  const handle = createWebhookVerifier({ webhookSecret }).nodeHandler(fn, { onError: () => {} });
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  expect((await simCall("POST", "/_sim/webhooks/endpoints", { url })).status).toBe(201);
}

/** Creates a text promotion and evaluates its version; returns the ids the event must carry. */
async function evaluate() {
  const created = await simCall(
    "POST",
    "/v1/promotions",
    sampleTextPromotion(sim.reference, {
      content: "<p>Save 5% this spring — « sans risque » 🌱</p>",
      metadata: { crm: "42", campaign: "spring" },
    }),
  );
  expect(created.status).toBe(201);
  const { promotionId, versionId } = created.body as { promotionId: string; versionId: string };
  const evaluation = await simCall("POST", `/v1/promotions/${promotionId}/versions/${versionId}/evaluate`);
  expect(evaluation.status).toBe(202);
  return { promotionId, versionId, evaluationId: evaluation.body["evaluationId"] as string };
}

interface SimDelivery {
  deliveryId: string;
  webhookId: string;
  eventType: string;
  status: string;
  attempts: { status?: number }[];
  replayOf?: string;
}

/**
 * The simulator's evaluation-completed deliveries. A service may send other event kinds besides
 * (docs/gaps.md row 20); these tests are about this one.
 */
async function deliveries(): Promise<SimDelivery[]> {
  const all = (await simCall("GET", "/_sim/webhooks/deliveries")).body["deliveries"] as SimDelivery[];
  return all.filter((d) => d.eventType === "evaluation-completed");
}

describe("deliveries from the simulator, over real HTTP", () => {
  it("are verified (signed with two secrets, one configured) and dispatched as typed events", async () => {
    const events: EvaluationCompletedEvent[] = [];
    await receiver((event) => {
      if (isEvaluationCompleted(event)) events.push(event);
    });
    const ids = await evaluate();
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1);
    const event = events[0]!;
    // A payload of only the documented fields (status, issues, metadata) names no ids (docs/gaps.md row 18).
    const documentedOnly = readingOf(sim, 18) === "documented-only";
    expect(event.data).toMatchObject({
      ...(documentedOnly ? {} : ids),
      // The final status's name is not shown (docs/gaps.md row 9).
      status: readingOf(sim, 9) === "final-succeeded" ? "succeeded" : "completed",
      metadata: { crm: "42", campaign: "spring" },
    });
    expect(event.data.issues.length).toBeGreaterThan(0);
    for (const issue of event.data.issues) expect(issue.commentId).toEqual(expect.any(String));
    expect((await deliveries())[0]).toMatchObject({ status: "delivered", attempts: [{ status: 200 }] });
  });

  it("a failing handler makes the simulator retry, and the retry is processed exactly once", async () => {
    let calls = 0;
    const processed: string[] = [];
    await receiver((event, delivery) => {
      if (event.type !== "evaluation-completed") return;
      calls++;
      if (calls === 1) throw new Error("database briefly unavailable");
      processed.push(`${delivery.id} ${event.type}`);
    });
    await evaluate();
    await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 10_000 }).toBe("delivered");
    const [delivery] = await deliveries();
    expect(delivery!.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(processed).toEqual([`${delivery!.webhookId} evaluation-completed`]);
    expect(calls).toBe(2);
  });

  it("a replayed delivery (commentId omitted) verifies and parses", async () => {
    const events: EvaluationCompletedEvent[] = [];
    await receiver((event) => {
      if (isEvaluationCompleted(event)) events.push(event);
    });
    await evaluate();
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1);
    const [original] = await deliveries();
    expect(
      (await simCall("POST", "/_sim/webhooks/replay", { deliveryId: original!.deliveryId })).status,
    ).toBe(201);
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(2);
    expect(events[1]!.data.evaluationId).toBe(events[0]!.data.evaluationId);
    for (const issue of events[1]!.data.issues) expect(issue.commentId).toBeUndefined();
  });

  it("a receiver with the wrong secret refuses every attempt with a bare 400", async () => {
    let calls = 0;
    await receiver(() => {
      calls++;
    }, "whsec_d3Jvbmctc2VjcmV0LW5vdC10aGUtc2ltdWxhdG9ycw==");
    await evaluate();
    await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 10_000 }).toBe("failed");
    const [delivery] = await deliveries();
    expect(delivery!.attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect(calls).toBe(0);
  });
});
