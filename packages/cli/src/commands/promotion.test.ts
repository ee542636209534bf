import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, createTextPromotion, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

let sim: Simulator;
let promotionId: string;
let firstVersionId: string;
const UNKNOWN = "0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";

async function json(args: string[]) {
  const captured = captureIo(simulatorEnv(sim));
  expect(await run([...args, "--json"], captured.io)).toBe(EXIT.ok);
  return JSON.parse(captured.stdout());
}

async function human(args: string[]) {
  const captured = captureIo(simulatorEnv(sim));
  expect(await run(args, captured.io)).toBe(EXIT.ok);
  return captured.stdout();
}

beforeAll(async () => {
  sim = await testSimulator();
  const created = await createTextPromotion(sim, "Save 5%");
  promotionId = created.promotionId;
  firstVersionId = created.versionId;
});
afterAll(() => sim.close());

describe("get <promotionId>", () => {
  it("reads the latest version, including one made in the web app", async () => {
    const webApp = sim.control.addWebAppVersion(promotionId);
    const read = await json(["get", promotionId]);
    expect(read).toMatchObject({
      promotionId,
      latestVersionId: webApp.versionId,
      latestVersion: 2,
      versionCount: 2,
    });
    expect(await human(["get", promotionId])).toMatch(
      new RegExp(`latest version:\\s+2 \\(${webApp.versionId}\\)`),
    );
  });

  it("refuses a bad uuid before sending (exit 2) and shows a 404 with its correlation id (exit 3)", async () => {
    const bad = captureIo(simulatorEnv(sim));
    expect(await run(["get", "not-a-uuid"], bad.io)).toBe(EXIT.usage);
    expect(bad.stderr()).toContain("field:          promotionId: must be a UUID");
    expect(bad.stderr()).not.toMatch(/\n\s+at /);
    const unknown = captureIo(simulatorEnv(sim));
    expect(await run(["get", UNKNOWN], unknown.io)).toBe(EXIT.service);
    expect(unknown.stderr()).toMatch(/code: {11}NOT_FOUND \(HTTP 404\)/);
    expect(unknown.stderr()).toMatch(/correlation id: \S+ \(quote it to support\)/);
  });

  it("without its argument, is a usage error (exit 2)", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["get"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain("missing required argument 'promotionId'");
  });
});

describe("submit <promotionId> [versionId] and decision <promotionId> [versionId]", () => {
  it("submits the latest when no version is given, and reads its decision", async () => {
    const latest = (await json(["get", promotionId])).latestVersionId;
    const submitted = await json([
      "submit",
      promotionId,
      "--reviewer",
      "compliance@example.com",
      "--deadline",
      "2026-06-01",
    ]);
    expect(submitted).toMatchObject({ versionId: latest, status: "pending" });
    expect(await json(["decision", promotionId])).toMatchObject({ versionId: latest, decision: "pending" });
    sim.control.setDecision(promotionId, latest, { decision: "approved", rationale: "Fine as is." });
    const text = await human(["decision", promotionId]);
    expect(text).toMatch(/decision:\s+approved/);
    expect(text).toMatch(/decided by:\s+sim-reviewer/);
    expect(text).toMatch(/rationale:\s+Fine as is\./);
  });

  it("works on a given version", async () => {
    expect(await human(["submit", promotionId, firstVersionId])).toMatch(/status:\s+pending/);
    expect(await json(["decision", promotionId, firstVersionId])).toMatchObject({
      versionId: firstVersionId,
      decision: "pending",
    });
  });

  it("refuses a bad deadline and a bad version uuid before sending (exit 2)", async () => {
    const deadline = captureIo(simulatorEnv(sim));
    expect(await run(["submit", promotionId, "--deadline", "2026-02-30"], deadline.io)).toBe(EXIT.usage);
    expect(deadline.stderr()).toMatch(/field: {10}deadline:/);
    const version = captureIo(simulatorEnv(sim));
    expect(await run(["decision", promotionId, "not-a-uuid"], version.io)).toBe(EXIT.usage);
    expect(version.stderr()).toContain("versionId: must be a UUID");
  });

  it("shows a 404 for an unknown promotion (exit 3)", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["decision", UNKNOWN], captured.io)).toBe(EXIT.service);
    expect(captured.stderr()).toContain("NOT_FOUND");
  });
});
