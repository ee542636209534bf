import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileJournal } from "@promo-review/sdk/node";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";
import { samplePdf } from "../sample-pdf.js";

let sim: Simulator;
let dir: string;
let manifests = 0;
beforeAll(async () => {
  sim = await testSimulator();
  dir = mkdtempSync(join(tmpdir(), "promo-review-batch-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(100 * 1024));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const HEADER =
  "key,promotionName,productIds,channelIds,jurisdictionId,fileFormat,content,files,submit,evaluate";
function manifest(rows: string[]): string {
  const path = join(dir, `batch-${++manifests}.csv`);
  writeFileSync(path, [HEADER, ...rows].join("\n"));
  return path;
}
function row(
  key: string,
  rest: { fileFormat?: string; content?: string; files?: string; submit?: boolean; evaluate?: boolean } = {},
) {
  const { products, channels, jurisdictions } = sim.reference;
  return [
    key,
    "Spring flyer",
    products[0]!.id,
    channels[0]!.id,
    jurisdictions[0]!.id,
    rest.fileFormat ?? "text",
    rest.content ?? (rest.files ? "" : "Save 10% this spring"),
    rest.files ?? "",
    String(rest.submit ?? false),
    String(rest.evaluate ?? false),
  ].join(",");
}
const creations = () =>
  sim.control.requests().filter((r) => r.method === "POST" && r.path === "/v1/promotions").length;

describe("batch run <manifest>: checked whole, planned, run with a journal", () => {
  it("runs every line, prints the plan and a CSV report, and a second run sends nothing", async () => {
    const path = manifest([
      row("uk", { submit: true, evaluate: true }),
      row("fr", { fileFormat: "pdf", files: "flyer.pdf" }),
    ]);
    const before = creations();
    const first = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path], first.io)).toBe(EXIT.ok);
    expect(first.stderr()).toContain("least time: at once");
    expect(first.stderr()).toContain("2 done, 0 failed, 0 ambiguous");
    const lines = first.stdout().trim().split("\n");
    expect(lines[0]).toBe(
      "key,status,promotionId,versionId,submitStatus,evaluationId,error,ambiguousStep,retriedSteps",
    );
    expect(lines.slice(1).sort()).toEqual([
      expect.stringMatching(/^fr,done,[0-9a-f-]{36},[0-9a-f-]{36},,,,,$/),
      expect.stringMatching(/^uk,done,[0-9a-f-]{36},[0-9a-f-]{36},pending,[0-9a-f-]{36},,,$/),
    ]);
    expect(existsSync(`${path}.journal`)).toBe(true);
    expect(creations()).toBe(before + 2);
    const second = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path], second.io)).toBe(EXIT.ok);
    expect(creations()).toBe(before + 2);
  });

  it("sends nothing while any line is bad, naming each (exit 2); --skip-invalid runs the rest", async () => {
    const path = manifest([row("ok"), row("bad", { fileFormat: "pdf", content: "inline" }), row("ok")]);
    const before = sim.control.requests().length;
    const refused = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path], refused.io)).toBe(EXIT.usage);
    expect(refused.stderr()).toContain('line 3 (key "bad"), content: must be omitted for file-based formats');
    expect(refused.stderr()).toContain('line 4 (key "ok"), key: repeats the key of line 2');
    expect(refused.stderr()).toContain("nothing was sent");
    expect(sim.control.requests().length).toBe(before);
    const skipped = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path, "--skip-invalid", "--json"], skipped.io)).toBe(EXIT.ok);
    expect(
      skipped
        .stdout()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).key),
    ).toEqual(["ok"]);
  });

  it("reports an ambiguous step (exit 3) and repeats it only with --retry-ambiguous", async () => {
    const path = manifest([row("a"), row("b")]);
    const journal = fileJournal(`${path}.journal`);
    await journal.append({ type: "batch", batchId: crypto.randomUUID(), at: Date.now() });
    await journal.append({ type: "intent", key: "b", step: "create", at: Date.now() });
    await journal.close();
    const first = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path], first.io)).toBe(EXIT.service);
    expect(first.stderr()).toContain("1 done, 0 failed, 1 ambiguous");
    expect(first.stderr()).toContain("--retry-ambiguous");
    const report = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "report", "--journal", `${path}.journal`, "--json"], report.io)).toBe(EXIT.ok);
    const reported = JSON.parse(report.stdout()) as {
      items: { key: string; status: string; ambiguousStep: string }[];
    };
    expect(reported.items.map((item) => [item.key, item.status, item.ambiguousStep]).sort()).toEqual([
      ["a", "done", ""],
      ["b", "ambiguous", "create"],
    ]);
    const retried = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path, "--retry-ambiguous"], retried.io)).toBe(EXIT.ok);
    // Repeated on purpose: said at the end of the run, and in every report from then on.
    expect(retried.stderr()).toContain("1 item had an ambiguous step repeated on purpose");
    const human = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "report", "--journal", `${path}.journal`], human.io)).toBe(EXIT.ok);
    expect(human.stdout()).toMatch(/^b,done,.*,create$/m);
    expect(human.stdout()).toMatch(/^a,done,.*,,$/m);
  });

  it("goes on after a torn last record in the journal", async () => {
    const path = manifest([row("t")]);
    appendFileSync(`${path}.journal`, '0badc0de {"type":"batch","batchId":"x');
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["batch", "run", path, "--concurrency", "2"], captured.io)).toBe(EXIT.ok);
    expect(captured.stdout()).toMatch(/^t,done,/m);
  });
});
