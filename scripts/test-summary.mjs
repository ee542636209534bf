// Totals of vitest JSON reports, one line each, in the plain "N passed, N failed, N skipped" form.
//
//   node scripts/test-summary.mjs --save DIR      copy every package's report of the run that just ended
//                                                 (packages/*/coverage/vitest-results.json) into DIR, and
//                                                 fail if a package has none
//   node scripts/test-summary.mjs --label L DIR…  print "L: N passed, N failed, N skipped" over every
//                                                 *.json in the DIRs; exit 1 when a test failed
//
// .ci/run saves the README test line's reports before its later steps run (a later vitest run cleans
// a package's coverage/ folder), and its last line totals every counted run.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);

if (args[0] === "--save") {
  const target = args[1];
  if (!target) throw new Error("--save needs a folder");
  mkdirSync(target, { recursive: true });
  const packages = join(root, "packages");
  const missing = [];
  for (const name of readdirSync(packages)) {
    if (!existsSync(join(packages, name, "package.json"))) continue;
    const report = join(packages, name, "coverage", "vitest-results.json");
    if (existsSync(report)) copyFileSync(report, join(target, `${name}.json`));
    else missing.push(name);
  }
  if (missing.length > 0) {
    console.log(`No test report from: ${missing.join(", ")}`);
    process.exit(1);
  }
  process.exit(0);
}

const labelAt = args.indexOf("--label");
const label = labelAt >= 0 ? args[labelAt + 1] : "Tests";
const dirs = args.filter((_, i) => i !== labelAt && i !== labelAt + 1);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of dirs) {
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    const results = JSON.parse(readFileSync(join(dir, file), "utf8"));
    passed += results.numPassedTests;
    failed += results.numFailedTests;
    skipped += results.numPendingTests + results.numTodoTests;
  }
}
console.log(`${label}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
