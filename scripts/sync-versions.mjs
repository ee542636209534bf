#!/usr/bin/env node
// After `changeset version` bumps the packages' package.json files, writes each new version into the
// package's `src/version.ts` constant (`export const X_VERSION = "…"`), which a main entry reads instead
// of package.json (no file system at the edge). Each package's version test fails when the two differ,
// so `pnpm version-packages` runs both steps. Prints what it changed.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const packages = join(import.meta.dirname, "..", "packages");
for (const dir of readdirSync(packages)) {
  let source;
  const file = join(packages, dir, "src", "version.ts");
  try {
    source = readFileSync(file, "utf8");
  } catch {
    continue; // a package without a version constant
  }
  const { version } = JSON.parse(readFileSync(join(packages, dir, "package.json"), "utf8"));
  const updated = source.replace(/(export const [A-Z_]+_VERSION = ")[^"]*(";)/, `$1${version}$2`);
  if (updated !== source) {
    writeFileSync(file, updated);
    console.log(`sync-versions: ${dir} ${version}`);
  }
}
