/**
 * README examples are code users copy first, so they run in the tests. This extracts every fenced
 * `ts` block of a README (except blocks preceded by `<!-- no-test -->`, used for shell-only or
 * deliberately partial snippets) and imports each one as a module, so a broken example fails CI.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/** One runnable block of a README. */
export interface ReadmeExample {
  /** 1-based index among the README's runnable blocks. */
  index: number;
  /** The line of the README where the block starts, for error messages. */
  line: number;
  code: string;
}

/** Extracts the runnable TypeScript blocks of a README, in order. */
export function readmeExamples(readmePath: string): ReadmeExample[] {
  const lines = readFileSync(readmePath, "utf8").split("\n");
  const examples: ReadmeExample[] = [];
  let inBlock = false;
  let skip = false;
  let start = 0;
  let body: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!inBlock && /^```(ts|typescript)\s*$/.test(line)) {
      inBlock = true;
      start = i + 1;
      body = [];
      skip = (lines[i - 1] ?? "").includes("<!-- no-test -->");
    } else if (inBlock && /^```\s*$/.test(line)) {
      inBlock = false;
      if (!skip) examples.push({ index: examples.length + 1, line: start, code: body.join("\n") });
    } else if (inBlock) {
      body.push(line);
    }
  }
  return examples;
}

/**
 * Writes an example into `<packageDir>/.readme-examples/` (git-ignored) and imports it, so the
 * package's own name resolves through the vitest alias to its sources. Returns the module.
 */
export async function runReadmeExample(packageDir: string, example: ReadmeExample): Promise<unknown> {
  const dir = join(packageDir, ".readme-examples");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `example-${example.index}-${process.pid}-${Date.now()}.ts`);
  writeFileSync(file, example.code);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * The README test every package runs: one test per runnable block, named after its line, plus a check
 * that the README has one at all (a README must start with a runnable example).
 */
export function testReadmeExamples(packageDir: string): void {
  describe("README examples run", () => {
    const examples = readmeExamples(join(packageDir, "README.md"));
    it("has at least one example", () => expect(examples.length).toBeGreaterThan(0));
    for (const example of examples) {
      it(`example ${example.index} (README line ${example.line})`, async () => {
        await runReadmeExample(packageDir, example);
      });
    }
  });
}
