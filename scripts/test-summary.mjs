// Prints one closing line for the whole workspace, "Tests: N passed, N failed, N skipped", from each
// package's vitest JSON report (coverage/vitest-results.json, written by vitest.shared.ts).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "packages");
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const name of readdirSync(root)) {
  const report = join(root, name, "coverage", "vitest-results.json");
  if (!existsSync(join(root, name, "package.json"))) continue;
  if (!existsSync(report)) {
    missing.push(name);
    continue;
  }
  const results = JSON.parse(readFileSync(report, "utf8"));
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + results.numTodoTests;
}
if (missing.length > 0) console.log(`No test report from: ${missing.join(", ")}`);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
