import { stripVTControlCharacters } from "node:util";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { captureIo, freePort, simulatorEnv } from "../test/support/io.js";
import { run } from "./cli.js";
import type { DemoSummary } from "./commands/demo.js";
import { EXIT } from "./exit-codes.js";

const STEPS = [
  "start the simulator",
  "listen for webhooks",
  "read reference data",
  "upload a sample PDF",
  "capture a link",
  "create a promotion",
  "add a version from the captured link",
  "add a version in the web app",
  "read the latest version",
  "submit the latest version",
  "read the decision",
  "evaluate and receive the signed webhook",
];

describe("demo: the whole workflow against the embedded simulator", () => {
  it("runs every step, verifies the webhook, reads the decision, and prints a summary", async () => {
    const captured = captureIo({}, { tty: true });
    const code = await run(["demo"], captured.io);
    expect(captured.stderr()).not.toMatch(/\n\s+at /);
    expect(code).toBe(EXIT.ok);
    // Each step as it ends is progress (stderr); the summary is the result (stdout).
    // On a terminal the marks are coloured (green ok): compare the text without the colour codes.
    expect(captured.stderr()).toContain(`  \x1b[32mok\x1b[39m  create a promotion:`);
    const progress = stripVTControlCharacters(captured.stderr());
    for (const step of STEPS) expect(progress).toContain(`  ok  ${step}:`);
    expect(progress).not.toContain("  !!  ");
    const out = captured.stdout();
    expect(progress).toMatch(
      /evaluate and receive the signed webhook: completed via webhook \(signature verified, 1 delivery\)/,
    );
    expect(progress).toMatch(/read the decision: conditionally_approved by sim-reviewer/);
    expect(progress).toMatch(/read the latest version: version 3 of 3/);
    expect(out).toMatch(/requests: {4}\d+ to the main API \(of 60 a minute per key\)/);
    // The progress bar was drawn on the (pretend) terminal, and reached the end.
    expect(captured.stderr()).toMatch(/uploading \[#+\] 100% \| ([\d.]+ KiB) of \1/);
  });

  it("prints the summary as JSON with --json, notes on stderr and no progress bar", async () => {
    const captured = captureIo({}, { tty: true });
    expect(await run(["demo", "--json"], captured.io)).toBe(EXIT.ok);
    const summary = JSON.parse(captured.stdout()) as DemoSummary;
    expect(summary.mode).toBe("embedded");
    expect(summary.steps.map((s) => s.step)).toEqual(STEPS);
    expect(summary.steps.every((s) => s.ok)).toBe(true);
    expect(summary.upload.chunks).toBeGreaterThan(3);
    expect(summary.upload.progressReports).toBeGreaterThan(1);
    expect(summary.promotion.tags).toEqual(["demo", "spring-2026"]);
    expect(summary.promotion.metadata).toEqual({ campaign: "spring-2026", source: "promo-review-demo" });
    expect(summary.latest).toMatchObject({
      version: 3,
      versionCount: 3,
      versionId: summary.versions.fromWebApp,
    });
    expect(summary.submitted).toEqual({ versionId: summary.latest.versionId, status: "pending" });
    expect(summary.decision).toMatchObject({
      decision: "conditionally_approved",
      decidedByUserId: "sim-reviewer",
    });
    expect(summary.evaluation).toMatchObject({ status: "completed", via: "webhook", verifiedWebhooks: 1 });
    expect(summary.evaluation.issues.length).toBeGreaterThan(0);
    // Every main-API request the client made reached the simulator, and no more.
    expect(summary.requests.main).toBe(summary.requests.simulatorLog?.main);
    expect(summary.requests.files).toBe(summary.requests.simulatorLog?.files);
    expect(captured.stderr()).toContain("  ok  create a promotion:");
    expect(captured.stderr()).not.toContain("uploading [");
  });
});

describe("demo: against a deployment given by PROMO_REVIEW_* settings", () => {
  it("skips the web-app step, and receives the webhook on --webhook-port once the deployment delivers there", async () => {
    const port = await freePort();
    const service = await startSimulator({ webhookUrls: [`http://127.0.0.1:${port}/webhooks`] });
    try {
      const captured = captureIo(simulatorEnv(service));
      const code = await run(["demo", "--json", "--webhook-port", String(port)], captured.io);
      expect(captured.stderr()).toContain("add a version in the web app: skipped");
      expect(code).toBe(EXIT.ok);
      const summary = JSON.parse(captured.stdout()) as DemoSummary;
      expect(summary.mode).toBe("service");
      expect(summary.baseUrl).toBe(service.baseUrl);
      expect(summary.versions.fromWebApp).toBeUndefined();
      expect(summary.latest).toMatchObject({ version: 2, versionCount: 2 });
      expect(summary.decision.decision).toBe("pending");
      expect(summary.evaluation).toMatchObject({ via: "webhook", verifiedWebhooks: 1 });
      expect(summary.requests.simulatorLog).toBeUndefined();
      expect(service.control.requests().filter((r) => r.service === "main")).toHaveLength(
        summary.requests.main,
      );
    } finally {
      await service.close();
    }
  });

  it("polls for the result when no webhook port is given", async () => {
    const service = await startSimulator({ evaluationDelayMs: 10 });
    try {
      const captured = captureIo(simulatorEnv(service));
      expect(await run(["demo", "--json"], captured.io)).toBe(EXIT.ok);
      const summary = JSON.parse(captured.stdout()) as DemoSummary;
      expect(summary.steps.map((s) => s.step)).toContain("evaluate and poll for the result");
      expect(summary.evaluation).toMatchObject({ status: "completed", via: "poll", verifiedWebhooks: 0 });
      expect(captured.stderr()).toContain("no webhook listener");
    } finally {
      await service.close();
    }
  });

  it("runs against its own simulator, and says so, when a stray API key is set without a base URL", async () => {
    const captured = captureIo({ PROMO_REVIEW_API_KEY: "pr_live_stray" }, { tty: true });
    expect(await run(["demo"], captured.io)).toBe(EXIT.ok);
    expect(captured.stderr()).toContain(
      "an API key is set but no base URL: the demo ignores the key and uses its own simulator",
    );
    expect(captured.stdout()).toContain("embedded simulator");
  });

  it("names every missing setting (exit 2) when a base URL is given without the rest, without advising `demo`", async () => {
    const captured = captureIo({ PROMO_REVIEW_BASE_URL: "http://127.0.0.1:9" });
    expect(await run(["demo"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain(
      "field:          --api-key: is required: pass --api-key or set PROMO_REVIEW_API_KEY",
    );
    expect(captured.stderr()).toContain("--files-url");
    expect(captured.stderr()).toContain("--user-id");
    expect(captured.stderr()).toContain(
      "without --base-url and PROMO_REVIEW_BASE_URL it starts its own simulator",
    );
    expect(captured.stderr()).not.toContain("`promo-review demo`");
    expect(captured.stderr()).not.toMatch(/\n\s+at /);
  });

  it("refuses --webhook-port without a webhook secret (exit 2)", async () => {
    const service = await startSimulator();
    try {
      const { PROMO_REVIEW_WEBHOOK_SECRET: _secret, ...env } = simulatorEnv(service);
      const captured = captureIo(env);
      expect(await run(["demo", "--webhook-port", "0"], captured.io)).toBe(EXIT.usage);
      expect(captured.stderr()).toContain("--webhook-secret: is required with --webhook-port");
    } finally {
      await service.close();
    }
  });

  it("reports the failed step and the service's error (exit 3) when the deployment refuses the key", async () => {
    const service = await startSimulator();
    try {
      const captured = captureIo({ ...simulatorEnv(service), PROMO_REVIEW_API_KEY: service.keys.revokedKey });
      expect(await run(["demo"], captured.io)).toBe(EXIT.service);
      expect(captured.stderr()).toContain("  !!  read reference data: failed");
      expect(captured.stderr()).toMatch(/code: {11}UNAUTHORIZED \(HTTP 401\)/);
      expect(captured.stderr()).toMatch(/correlation id: \S+/);
    } finally {
      await service.close();
    }
  });
});
