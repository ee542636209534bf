#!/usr/bin/env node
// After `changeset version` bumps the packages' package.json files, writes each new version into the
// package's version constants (`export const X_VERSION = "…"` in `src/version.ts`, or a `VERSION`), which a main entry reads instead
// of package.json (no file system at the edge). Each package's version test fails when the two differ,
// so `pnpm version-packages` runs both steps. Prints what it changed.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const packages = join(import.meta.dirname, "..", "packages");
// The constant's name ends in VERSION (`SDK_VERSION` in src/version.ts, or a module's own `VERSION`,
// as the cli's and webhook-verify's scope name): every one in a package's source is kept equal.
const CONSTANT = /(export const (?:[A-Z_]+_)?VERSION = ")[^"]*(";)/;
for (const dir of readdirSync(packages)) {
  const src = join(packages, dir, "src");
  let files;
  try {
    files = readdirSync(src).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
  } catch {
    continue; // not a package with sources
  }
  const { version } = JSON.parse(readFileSync(join(packages, dir, "package.json"), "utf8"));
  for (const name of files) {
    const file = join(src, name);
    const source = readFileSync(file, "utf8");
    const updated = source.replace(CONSTANT, `$1${version}$2`);
    if (updated !== source) {
      writeFileSync(file, updated);
      console.log(`sync-versions: ${dir}/src/${name} ${version}`);
    }
  }
}
