import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, requiredCreateFlags, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";
import { samplePdf } from "../sample-pdf.js";
import { metadataOf } from "./create.js";

let sim: Simulator;
let dir: string;
let required: string[];
beforeAll(async () => {
  sim = await testSimulator();
  dir = mkdtempSync(join(tmpdir(), "promo-review-cli-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(100 * 1024));
  required = requiredCreateFlags(sim, "Spring ISA");
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function json(args: string[]) {
  const captured = captureIo(simulatorEnv(sim));
  const code = await run([...args, "--json"], captured.io);
  expect(captured.stderr()).toBe("");
  expect(code).toBe(EXIT.ok);
  return JSON.parse(captured.stdout());
}

describe("create: a promotion with its first version", () => {
  it("from --content, with repeatable --tag and --meta, and the other creation fields", async () => {
    const created = await json([
      "create",
      ...required,
      "--content",
      "Save 5% this spring. Capital at risk.",
      "--tag",
      " spring ",
      "--tag",
      "isa",
      "--meta",
      "campaign=spring-2026",
      "--meta",
      "crm=c=42",
      "--details",
      "Check the risk warning",
      "--caption",
      "Spring",
      "--type",
      "single",
      "--deadline",
      "2026-05-01",
      "--next-review-date",
      "2027-01-01T00:00:00Z",
      "--paid",
      "--evergreen",
      "--not-financial",
      "--target-market",
      sim.reference.targetMarkets[0]!.id,
    ]);
    expect(created).toMatchObject({
      version: 1,
      tags: ["spring", "isa"],
      metadata: { campaign: "spring-2026", crm: "c=42" },
    });
    const sent = sim.control.requests().find((r) => r.method === "POST" && r.path === "/v1/promotions");
    expect(sent?.status).toBe(201);
  });

  it("prints the ids for people", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(
      await run(["create", ...required, "--content", "Hello", "--tag", "x", "--meta", "a=b"], captured.io),
    ).toBe(EXIT.ok);
    expect(captured.stdout()).toMatch(/promotion:\s+[0-9a-f-]{36}\n/);
    expect(captured.stdout()).toMatch(/version:\s+1 \([0-9a-f-]{36}\)/);
    expect(captured.stdout()).toMatch(/tags:\s+x/);
    expect(captured.stdout()).toMatch(/metadata:\s+\{"a":"b"\}/);
  });

  it("from --file (uploaded first, format from its type) and from --upload with --format", async () => {
    const fromFile = await json(["create", ...required, "--file", join(dir, "flyer.pdf")]);
    expect(fromFile.version).toBe(1);
    const upload = await json(["upload", join(dir, "flyer.pdf")]);
    const fromUpload = await json(["create", ...required, "--upload", upload.uploadId, "--format", "pdf"]);
    expect(fromUpload.version).toBe(1);
  });

  it("refuses an over-long --details before sending or uploading anything (exit 2, field named)", async () => {
    const before = sim.control.requests().length;
    const captured = captureIo(simulatorEnv(sim));
    const code = await run(
      ["create", ...required, "--file", join(dir, "flyer.pdf"), "--details", "d".repeat(1501)],
      captured.io,
    );
    expect(code).toBe(EXIT.usage);
    expect(captured.stderr()).toMatch(/field: {10}details: [^\n]*1500/);
    expect(captured.stderr()).toContain("Nothing was sent.");
    expect(captured.stderr()).not.toMatch(/\n\s+at /);
    expect(sim.control.requests().length).toBe(before);
  });

  it("names the content problems: none or two given, --upload without --format, --format with --content", async () => {
    const cases: [string[], RegExp][] = [
      [[], /--content \| --upload \| --file: exactly one of them is required/],
      [["--content", "x", "--upload", "u"], /exactly one of them is required/],
      [["--upload", "u"], /--format: is required with --upload/],
      [["--content", "x", "--format", "pdf"], /--format: must be text \(or left out\) with --content/],
      [["--content", "x", "--meta", "novalue"], /--meta: must be key=value/],
    ];
    for (const [args, message] of cases) {
      const captured = captureIo(simulatorEnv(sim));
      expect(await run(["create", ...required, ...args], captured.io)).toBe(EXIT.usage);
      expect(captured.stderr()).toMatch(message);
    }
  });

  it("lets commander refuse a missing required flag or a bad choice (exit 2)", async () => {
    const missing = captureIo(simulatorEnv(sim));
    expect(await run(["create", "--content", "x"], missing.io)).toBe(EXIT.usage);
    expect(missing.stderr()).toContain("required option '--name <name>' not specified");
    const choice = captureIo(simulatorEnv(sim));
    expect(await run(["create", ...required, "--upload", "u", "--format", "gif"], choice.io)).toBe(
      EXIT.usage,
    );
    expect(choice.stderr()).toMatch(/argument 'gif' is invalid/);
  });

  it("shows the service's field errors for ids it does not know (exit 3)", async () => {
    const captured = captureIo(simulatorEnv(sim));
    const unknown = "0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";
    const code = await run(
      ["create", ...required.slice(0, 2), "--product", unknown, "--channel", unknown, "--content", "x"],
      captured.io,
    );
    expect(code).toBe(EXIT.service);
    expect(captured.stderr()).toMatch(/field: {10}productIds\.0/);
    expect(captured.stderr()).toMatch(/correlation id: \S+/);
  });
});

describe("version <promotionId>: a new version", () => {
  it("adds versions from text and from a file; the latest is the newest", async () => {
    const created = await json(["create", ...required, "--content", "v1"]);
    const second = await json([
      "version",
      created.promotionId,
      "--content",
      "v2",
      "--details",
      "risk warning added",
    ]);
    expect(second.version).toBe(2);
    const third = await json([
      "version",
      created.promotionId,
      "--file",
      join(dir, "flyer.pdf"),
      "--caption",
      "Flyer",
    ]);
    expect(third.version).toBe(3);
    const human = captureIo(simulatorEnv(sim));
    expect(await run(["version", created.promotionId, "--content", "v4", "--not-financial"], human.io)).toBe(
      EXIT.ok,
    );
    expect(human.stdout()).toMatch(/version:\s+4 \(/);
    const read = await json(["get", created.promotionId]);
    expect(read).toMatchObject({ latestVersion: 4, versionCount: 4 });
  });

  it("refuses a bad uuid (exit 2) and an over-long --details (exit 2)", async () => {
    const badId = captureIo(simulatorEnv(sim));
    expect(await run(["version", "not-a-uuid", "--content", "x"], badId.io)).toBe(EXIT.usage);
    expect(badId.stderr()).toContain("field:          promotionId: must be a UUID");
    const long = captureIo(simulatorEnv(sim));
    const id = "0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";
    expect(await run(["version", id, "--content", "x", "--details", "d".repeat(1501)], long.io)).toBe(
      EXIT.usage,
    );
    expect(long.stderr()).toMatch(/field: {10}details:/);
  });
});

describe("--meta key=value", () => {
  it("splits at the first '=' and leaves nothing when none is given", () => {
    expect(metadataOf(["a=1", "b=x=y", "c="])).toEqual({ a: "1", b: "x=y", c: "" });
    expect(metadataOf([])).toBeUndefined();
    expect(() => metadataOf(["=v"])).toThrow(/Bad metadata/);
    // Keys named like Object.prototype members are metadata like any other, never dropped.
    const named = metadataOf(["__proto__=a", "constructor=b"])!;
    expect(Object.keys(named)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(named)).toBe('{"__proto__":"a","constructor":"b"}');
  });
});
