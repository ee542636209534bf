import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CapturedIo,
  captureIo,
  createTextPromotion,
  simulatorEnv,
  testSimulator,
} from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await testSimulator();
});
afterAll(() => sim.close());

/** Waits until the listener says where it listens, and returns that URL. */
async function listeningUrl(captured: CapturedIo): Promise<string> {
  for (;;) {
    const url = /Listening for webhooks on (\S+)/.exec(captured.stdout() + captured.stderr())?.[1];
    if (url) return url;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function evaluateSomething(): Promise<string> {
  const { promotionId } = await createTextPromotion(sim, "Guaranteed returns");
  expect(await run(["evaluate", promotionId], captureIo(simulatorEnv(sim)).io)).toBe(EXIT.ok);
  return promotionId;
}

describe("webhooks listen", () => {
  it("verifies and prints deliveries as JSON lines, stopping after --count", async () => {
    const captured = captureIo({ PROMO_REVIEW_WEBHOOK_SECRET: sim.webhookSecret });
    const running = run(["webhooks", "listen", "--port", "0", "--count", "1", "--json"], captured.io);
    sim.control.addWebhookEndpoint(await listeningUrl(captured));
    const promotionId = await evaluateSomething();
    expect(await running).toBe(EXIT.ok);
    const line = JSON.parse(captured.stdout().trim());
    expect(line.webhookId).toMatch(/^msg_/);
    expect(line.event).toMatchObject({
      type: "evaluation-completed",
      data: { promotionId, status: "completed" },
    });
  });

  it("prints deliveries for people and reports refused ones on stderr, until stopped", async () => {
    const captured = captureIo();
    const running = run(
      ["webhooks", "listen", "--port", "0", "--webhook-secret", sim.webhookSecret],
      captured.io,
    );
    const url = await listeningUrl(captured);
    const forged = await fetch(url, {
      method: "POST",
      headers: {
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: "{}",
    });
    expect(forged.status).toBe(400);
    expect(captured.stderr()).toMatch(/refused a delivery \(\w+\)/);
    sim.control.addWebhookEndpoint(url);
    const promotionId = await evaluateSomething();
    while (!captured.stdout().includes(promotionId)) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(captured.stdout()).toMatch(
      new RegExp(
        `msg_\\S+ evaluation-completed: promotion ${promotionId} version \\S+, completed, \\d+ issues`,
      ),
    );
    captured.stop();
    expect(await running).toBe(EXIT.ok);
    // Stopped means closed: the port no longer answers.
    await expect(fetch(url, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("under --json: stdout holds deliveries only, and each refused delivery is a JSON line on stderr", async () => {
    const captured = captureIo({ PROMO_REVIEW_WEBHOOK_SECRET: sim.webhookSecret });
    const running = run(["webhooks", "listen", "--port", "0", "--json"], captured.io);
    const url = await listeningUrl(captured);
    // The notice is not a result: stdout holds deliveries only.
    expect(captured.stdout()).toBe("");
    const forged = await fetch(url, {
      method: "POST",
      headers: {
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: "{}",
    });
    expect(forged.status).toBe(400);
    const lines = captured
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      refused: { reason: expect.any(String), code: expect.any(String), message: expect.any(String) },
    });
    expect(captured.stderr()).not.toContain("refused a delivery (");
    captured.stop();
    expect(await running).toBe(EXIT.ok);
    expect(captured.stdout()).toBe("");
  });

  it("needs the webhook secret (exit 2)", async () => {
    const captured = captureIo();
    expect(await run(["webhooks", "listen", "--port", "0"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain(
      "--webhook-secret: is required: pass it or set PROMO_REVIEW_WEBHOOK_SECRET",
    );
  });
});
