import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeStreamFetch } from "@promo-review/http/node";
import { startSimulator } from "@promo-review/simulator";
import { afterAll, describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../test/support/sim.js";
import { fileSource } from "./node.js";

const sim = useSimulator(startSimulator, { seed: 3, uploadProcessingDelayMs: 20, maxChunkSize: 256 * 1024 });
const dir = mkdtempSync(join(tmpdir(), "sdk-node-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a promotion from a local file (Node sub-path)", () => {
  it.each([
    ["nodeStreamFetch (Node's default)", {}],
    ["nodeStreamFetch given", { fetch: nodeStreamFetch }],
    ["the platform's fetch given", { fetch: globalThis.fetch }],
  ])("uploads the file in chunks with the right hash and creates the promotion (%s)", async (_, config) => {
    const bytes = new Uint8Array(700_000).map((_, i) => (i * 31) % 251);
    const path = join(dir, "brochure.pdf");
    writeFileSync(path, bytes);
    const client = clientFor(sim(), config);
    const { promotion, upload } = await client.flows.createFromFile(await fileSource(path), {
      fileName: "brochure.pdf",
      contentType: "application/pdf",
      promotion: promotionFields(sim()),
    });
    expect(promotion.version).toBe(1);
    expect(sim().control.upload(upload.uploadId).sha256).toBe(
      createHash("sha256").update(bytes).digest("hex"),
    );
  });
});
