#!/usr/bin/env node
import { execFileSync } from "node:child_process";
// Creates the skeleton of a package with the house layout (see docs/CONTRIBUTING.md):
//   node scripts/new-package.mjs <name> "<description>" [--private]
// It writes package.json, tsconfig.json, tsconfig.build.json and vitest.config.ts; the sources,
// README and tests are yours to write.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [name, description, flag] = process.argv.slice(2);
if (!name || !description) {
  console.error('usage: node scripts/new-package.mjs <name> "<description>" [--private]');
  process.exit(2);
}
const dir = join(import.meta.dirname, "..", "packages", name);
if (existsSync(join(dir, "package.json"))) {
  console.error(`packages/${name} exists already`);
  process.exit(1);
}
mkdirSync(join(dir, "src"), { recursive: true });
const json = (file, value) => writeFileSync(join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
json("package.json", {
  name: `@promo-review/${name}`,
  version: "0.0.0",
  description,
  license: "MIT",
  ...(flag === "--private" ? { private: true } : {}),
  type: "module",
  sideEffects: false,
  engines: { node: ">=20.19" },
  exports: {
    ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    "./package.json": "./package.json",
  },
  main: "./dist/index.js",
  types: "./dist/index.d.ts",
  files: ["dist", "!dist/**/*.test.*", "README.md", "CHANGELOG.md"],
  scripts: {
    build: "tsc -p tsconfig.build.json",
    typecheck: "tsc -p tsconfig.json",
    lint: "biome check . && node ../../scripts/check-test-imports.mjs",
    test: "vitest run --coverage",
  },
  ...(flag === "--private" ? {} : { publishConfig: { access: "public" } }),
});
json("tsconfig.json", {
  extends: "../../tsconfig.base.json",
  compilerOptions: { noEmit: true, allowImportingTsExtensions: true, types: ["node"] },
  include: ["src", "test", "bench", "*.ts"],
});
json("tsconfig.build.json", {
  extends: "../../tsconfig.base.json",
  compilerOptions: { rootDir: "src", outDir: "dist", noEmit: false },
  include: ["src"],
  exclude: ["src/**/*.test.ts", "src/**/test-*.ts"],
});
writeFileSync(
  join(dir, "vitest.config.ts"),
  `import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

export default defineConfig(packageTestConfig({ dir: import.meta.dirname }));
`,
);
execFileSync("npx", ["biome", "format", "--write", dir], { stdio: "ignore" });
console.log(`created packages/${name}`);
