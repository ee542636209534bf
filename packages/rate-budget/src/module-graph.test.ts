import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findCycle } from "../../../testing/import-graph.ts";

// Every relative import or re-export of a source file, type-only ones included: a cycle of types is
// still a circle a reader has to follow. (Every package's runtime graph is checked once, from its
// built files, in runtime-proof's import-cycles.test.ts; this package holds its sources to the
// stricter rule.)
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?["']\.\/([\w.-]+)\.js["']/g;

function sourceGraph(dir: string): Map<string, string[]> {
  const files = readdirSync(dir).filter(
    (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("test-"),
  );
  return new Map(
    files.map((file) => {
      const text = readFileSync(join(dir, file), "utf8");
      return [file.replace(/\.ts$/, ""), [...text.matchAll(IMPORT)].map((m) => m[1]!)];
    }),
  );
}

describe("the source modules import each other without a circle", () => {
  it("finds a cycle when there is one (the check itself can fail)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
    ]);
    expect(findCycle(graph)).toEqual(["a", "b", "c", "a"]);
    expect(
      findCycle(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).toBeUndefined();
  });

  it("reads every kind of relative import", () => {
    const text = `import { a } from "./a.js";\nimport type { B } from "./b.js";\nexport { c } from "./c.js";\nexport type { D } from "./d.js";\nimport {\n  e,\n  type F,\n} from "./e-f.js";`;
    expect([...text.matchAll(IMPORT)].map((m) => m[1])).toEqual(["a", "b", "c", "d", "e-f"]);
  });

  it("src has no import cycle, type-only imports included", () => {
    const graph = sourceGraph(import.meta.dirname);
    expect(graph.get("budget")).toContain("types");
    expect(findCycle(graph)).toBeUndefined();
  });
});
