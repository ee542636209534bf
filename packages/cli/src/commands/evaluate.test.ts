import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  captureIo,
  createTextPromotion,
  freePort,
  simulatorEnv,
  testSimulator,
} from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

let sim: Simulator;
let promotionId: string;

beforeAll(async () => {
  sim = await testSimulator();
  promotionId = (await createTextPromotion(sim, "Guaranteed 12% returns!")).promotionId;
});
afterAll(() => sim.close());

describe("evaluate <promotionId> [versionId]", () => {
  it("starts an evaluation of the latest version and prints its id", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["evaluate", promotionId, "--json"], captured.io)).toBe(EXIT.ok);
    const started = JSON.parse(captured.stdout());
    expect(started).toMatchObject({ promotionId, status: "processing" });
    expect(sim.control.evaluations().map((e) => e.evaluationId)).toContain(started.evaluationId);
    const human = captureIo(simulatorEnv(sim));
    expect(await run(["evaluate", promotionId, started.versionId], human.io)).toBe(EXIT.ok);
    expect(human.stdout()).toMatch(/status:\s+processing/);
  });

  it("--wait without a webhook port polls for the result and prints the issues", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["evaluate", promotionId, "--wait"], captured.io)).toBe(EXIT.ok);
    expect(captured.stdout()).toMatch(/status:\s+completed/);
    expect(captured.stdout()).toMatch(/received:\s+by polling/);
    expect(captured.stdout()).toMatch(/\n {2}- (high|medium|low) \S+: /);
  });

  it("--wait --webhook-port receives the result by a verified webhook", async () => {
    const port = await freePort();
    sim.control.addWebhookEndpoint(`http://127.0.0.1:${port}/webhooks`);
    const captured = captureIo(simulatorEnv(sim));
    expect(
      await run(["evaluate", promotionId, "--wait", "--webhook-port", String(port), "--json"], captured.io),
    ).toBe(EXIT.ok);
    expect(JSON.parse(captured.stdout())).toMatchObject({ promotionId, status: "completed", via: "webhook" });
    expect(captured.stderr()).toContain(
      `Waiting for the evaluation-completed webhook on http://127.0.0.1:${port}/webhooks`,
    );
  });

  it("falls back to polling after --poll-after when no webhook comes", async () => {
    const port = await freePort();
    const captured = captureIo(simulatorEnv(sim));
    const code = await run(
      ["evaluate", promotionId, "--wait", "--webhook-port", String(port), "--poll-after", "0", "--json"],
      captured.io,
    );
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(captured.stdout())).toMatchObject({ via: "poll", status: "completed" });
  });

  it("refuses --webhook-port without a secret, a bad uuid and a bad port (exit 2)", async () => {
    const { PROMO_REVIEW_WEBHOOK_SECRET: _secret, ...env } = simulatorEnv(sim);
    const noSecret = captureIo(env);
    expect(await run(["evaluate", promotionId, "--wait", "--webhook-port", "0"], noSecret.io)).toBe(
      EXIT.usage,
    );
    expect(noSecret.stderr()).toContain("--webhook-secret: is required with --webhook-port");
    const badId = captureIo(simulatorEnv(sim));
    expect(await run(["evaluate", "nope"], badId.io)).toBe(EXIT.usage);
    expect(badId.stderr()).toContain("promotionId: must be a UUID");
    const badPort = captureIo(simulatorEnv(sim));
    expect(await run(["evaluate", promotionId, "--wait", "--webhook-port", "70000"], badPort.io)).toBe(
      EXIT.usage,
    );
    expect(badPort.stderr()).toContain("must be an integer from 0 to 65535");
  });
});
