/**
 * No package's modules import each other in a circle at run time. In a circle, which module runs first
 * depends on which one a user imports first, and a value read during evaluation can still be
 * undefined (the simulator's `cli.ts` and `index.ts` were such a pair). The graph read is the built one
 * (`dist/**\/*.js`): it is what runs, with type-only imports already gone and every import that stays
 * (`import {} from`, a side-effect import) still there. Dynamic `import()` is left out: it runs after
 * both modules have been evaluated, so it cannot be caught half-way.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { init, parse } from "es-module-lexer";
import { beforeAll, describe, expect, it } from "vitest";
import { findCycle } from "../../../testing/import-graph.ts";
import { publishablePackages } from "./harness/workspace.ts";

/** Every `.js` file under `dir`. */
function scripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return scripts(path);
    return name.endsWith(".js") ? [path] : [];
  });
}

/** The relative modules `file` imports statically (`import`, `export ... from`), as paths under `dir`. */
function staticRelativeImports(dir: string, file: string): string[] {
  const [imports] = parse(readFileSync(file, "utf8"), file);
  return imports
    .filter((entry) => entry.type === "static" || entry.type === "reexport-star")
    .map((entry) => entry.specifier as string)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(dir, resolve(dirname(file), specifier)));
}

/** The runtime import graph of the built files under `dir`, keyed by path under `dir`. */
function runtimeGraph(dir: string): Map<string, string[]> {
  return new Map(
    scripts(dir).map((file) => [relative(dir, file), staticRelativeImports(dir, file)] as const),
  );
}

beforeAll(() => init);

describe("no package's modules import each other in a circle at run time", () => {
  for (const pkg of publishablePackages()) {
    it(`${pkg.manifest.name}: dist has no static import cycle`, () => {
      const graph = runtimeGraph(join(pkg.path, "dist"));
      expect(graph.size, "built files (run the package's build first)").toBeGreaterThan(0);
      const cycle = findCycle(graph);
      expect(cycle?.map((file) => `src/${file.replace(/\.js$/, ".ts")}`)).toBeUndefined();
    });
  }

  describe("the check finds a cycle where there is one", () => {
    const write = (dir: string, files: Record<string, string>) => {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      return dir;
    };
    const inTempDir = (files: Record<string, string>, check: (dir: string) => void) => {
      const dir = write(mkdtempSync(join(tmpdir(), "import-cycles-")), files);
      try {
        check(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };

    it("through imports, re-exports and an import kept for its side effects", () => {
      inTempDir(
        {
          "index.js": `export { run } from "./cli.js";\nexport * from "./types.js";`,
          "cli.js": `import {} from "./start.js";\nexport const run = 1;`,
          "start.js": `import "./index.js";`,
          "types.js": "export {};",
        },
        (dir) => {
          // Where the search enters the circle depends on the order of the files; the circle does not.
          const cycle = findCycle(runtimeGraph(dir));
          expect(cycle?.at(0)).toBe(cycle?.at(-1));
          expect(new Set(cycle)).toEqual(new Set(["index.js", "cli.js", "start.js"]));
        },
      );
    });

    it("but not through a dynamic import(), which runs after both modules are evaluated", () => {
      inTempDir(
        {
          "index.js": `export const load = () => import("./cli.js");`,
          "cli.js": `import { load } from "./index.js";\nexport const run = load;`,
        },
        (dir) => expect(findCycle(runtimeGraph(dir))).toBeUndefined(),
      );
    });
  });
});
