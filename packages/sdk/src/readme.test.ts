import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readmeExamples, runReadmeExample } from "../../../testing/readme-examples.ts";

const dir = join(import.meta.dirname, "..");

describe("README examples run", () => {
  const examples = readmeExamples(join(dir, "README.md"));
  it("has at least one example", () => expect(examples.length).toBeGreaterThan(0));
  for (const example of examples) {
    it(`example ${example.index} (README line ${example.line})`, async () => {
      await runReadmeExample(dir, example);
    });
  }
});
