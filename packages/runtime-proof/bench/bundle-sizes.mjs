#!/usr/bin/env node
// `pnpm bench` for runtime-proof: measures the bundle sizes (ours with budgets, and the peers a user
// would pick instead, in the same run) and writes the table to bench/results/bundle-sizes.md at the
// repository root, where scripts/bench-report.mjs collects it. The measuring code is the test's own
// (test/harness/sizes.ts), compiled here with esbuild because Node 20 does not run TypeScript.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { writeResult } from "../../../scripts/bench-output.mjs";

const here = import.meta.dirname;
const out = join(here, "..", ".proof", "sizes.mjs");
await build({
  entryPoints: [join(here, "..", "test", "harness", "sizes.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  outfile: out,
  logLevel: "silent",
});
const { measureAll, sizeTable } = await import(pathToFileURL(out).href);
const results = await measureAll();
const table = sizeTable(results);
const markdown = `# Bundle sizes

What a user's bundler ships: esbuild ${(await import("esbuild")).version}, browser platform, ESM,
minified, then gzip level 9; 1 KB = 1024 bytes. "ours" rows carry the budgets of issue 19 (enforced by
runtime-proof's tests); "tree-shaken" rows import one small export; "peer" rows are the packages a user
would pick instead, measured in the same run. "own files only" is a whole package built with every
package it imports left out (its dependencies, ours included): what the package's own code weighs.
"without messages" is the same bundle with the text of every message taken out (every string or
template of 12 characters or more with a space in it): what the behaviour weighs, whatever the
wording, measured the same way for the peers.

${table}`;
writeResult("bundle-sizes", markdown);
console.log(markdown);
