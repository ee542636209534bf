#!/usr/bin/env node
/**
 * Part of each package's `lint`: production code never depends on test code. Run from a package folder,
 * it reads every file under src/ that is not a test (`*.test.ts`) and fails, naming file, line and
 * import, when one imports a test helper: anything under the package's `test/`, the root `testing/`,
 * or a `test-*` file. A test helper left in src/ (`src/**\/test-*.ts`) fails too: helpers live in
 * `test/support/` (or the root `testing/` when shared), where the build and the tarball never see them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

const pkg = process.cwd();
const root = resolve(pkg, "..", "..");
const src = join(pkg, "src");

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

// `import ... from "x"`, `export ... from "x"`, `import "x"`, `import("x")`, `require("x")`.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;

/** Why importing `specifier` from `file` brings test code into production, or undefined. */
function testCodeIn(file, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const target = resolve(dirname(file), specifier);
  const inside = (dir) => target === dir || target.startsWith(dir + sep);
  if (inside(join(pkg, "test"))) return "the package's test/ folder";
  if (inside(join(root, "testing"))) return "the shared testing/ folder";
  if (/^test-/.test(basename(target))) return "a test-* helper";
  return undefined;
}

const problems = [];
for (const file of filesUnder(src).filter((f) => /\.(ts|mts|js|mjs)$/.test(f))) {
  if (/\.test\.[mc]?[tj]s$/.test(file)) continue;
  const shown = relative(pkg, file);
  if (/^test-/.test(basename(file))) {
    problems.push(
      `${shown}: a test helper in src/; move it to test/support/ (or the root testing/ when shared)`,
    );
    continue;
  }
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, index) => {
    for (const match of line.matchAll(SPECIFIER)) {
      const why = testCodeIn(file, match[1]);
      if (why)
        problems.push(
          `${shown}:${index + 1}: imports ${JSON.stringify(match[1])}, ${why}: production code never imports test code`,
        );
    }
  });
}

if (problems.length > 0) {
  console.error(
    `check-test-imports: ${problems.length} problem(s) in ${relative(root, pkg)}\n${problems.join("\n")}`,
  );
  process.exit(1);
}
