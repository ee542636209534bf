/**
 * The repository's README: its "Which package for which job" examples run here, written into this
 * package's folder so that their imports (`@promo-review/webhook-verify`, `upload-chunker`, `sdk`,
 * `simulator`) resolve through this package's dependencies, as a user's would.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeExamples, runReadmeExample } from "../../../testing/readme-examples.ts";

const packageDir = join(import.meta.dirname, "..");
const examples = readmeExamples(join(packageDir, "../../README.md"));

describe("the root README's examples run", () => {
  it("has one per job: edge webhook receiver, browser uploader, back-end client", () => {
    const jobs = ["@promo-review/webhook-verify", "@promo-review/upload-chunker", "@promo-review/sdk"];
    expect(examples).toHaveLength(jobs.length);
    expect(examples.map((example, i) => example.code.includes(`from "${jobs[i]}";`))).toEqual([
      true,
      true,
      true,
    ]);
  });
  for (const example of examples) {
    it(`example ${example.index} (README line ${example.line})`, async () => {
      await runReadmeExample(packageDir, example);
    });
  }
});
