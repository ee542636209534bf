import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeExamples, runReadmeExample } from "../../../testing/readme-examples.ts";

const dir = join(import.meta.dirname, "..");

describe("README: every ts example runs", () => {
  const examples = readmeExamples(join(dir, "README.md"));
  it("has examples", () => expect(examples.length).toBeGreaterThanOrEqual(3));
  for (const example of examples) {
    it(`example ${example.index} (README line ${example.line})`, async () => {
      await runReadmeExample(dir, example);
    });
  }
});
