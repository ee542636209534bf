import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { manifestFile, manifestFormatOf } from "../node.js";

const dir = mkdtempSync(join(tmpdir(), "sdk-manifest-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const PRODUCT = "3f1c2a4e-8b7d-4c1e-9a2b-1d3e5f7a9b0c";
const CHANNEL = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";

describe("a manifest file (Node): its format from its extension, files relative to it", () => {
  it("reads CSV by extension, resolves files against the manifest's folder, reports missing files", async () => {
    writeFileSync(join(dir, "flyer.pdf"), "%PDF-1.4");
    const path = join(dir, "batch.csv");
    writeFileSync(
      path,
      [
        "key,promotionName,productIds,channelIds,fileFormat,files",
        `a,Flyer,${PRODUCT},${CHANNEL},pdf,flyer.pdf`,
        `b,Flyer,${PRODUCT},${CHANNEL},pdf,flyer.pdf;missing.pdf`,
      ].join("\n"),
    );
    const manifest = manifestFile(path);
    expect(manifest.format).toBe("csv");
    const entries = [];
    for await (const entry of manifest.entries()) entries.push(entry);
    expect(entries[0]!.item?.files).toEqual([join(dir, "flyer.pdf")]);
    expect(entries[1]!.problems).toEqual([
      { line: 3, key: "b", field: "files.1", message: `${join(dir, "missing.pdf")} is not a file` },
    ]);
    const check = await manifest.check();
    expect(check.totals).toEqual({ items: 1, files: 1, links: 0, submits: 0, evaluations: 0 });
  });

  it("takes any other extension as JSON Lines, unless told", () => {
    expect(manifestFormatOf("/x/batch.JSONL")).toBe("jsonl");
    expect(manifestFormatOf("/x/batch.ndjson")).toBe("jsonl");
    expect(manifestFormatOf("/x/batch.Csv")).toBe("csv");
    expect(manifestFile("/x/batch.txt", { format: "csv" }).format).toBe("csv");
  });
});
