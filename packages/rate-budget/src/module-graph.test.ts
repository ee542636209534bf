import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// Every relative import or re-export of a source file, type-only ones included: a cycle of types is
// still a circle a reader has to follow.
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

/** The first import cycle found by depth-first search, as a path of module names; `undefined` if none. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
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
