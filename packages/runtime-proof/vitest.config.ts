/**
 * runtime-proof has no library sources, so it runs without the shared 90% coverage floor; it keeps the
 * shared include pattern, timeouts and the JSON report that scripts/test-summary.mjs reads. Files run one
 * after another: each starts simulators, runtimes and a browser, and the machine has two cores.
 */
import { defineConfig } from "vitest/config";
import { jsonReportPath } from "../../vitest.shared.ts";

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    reporters: ["default", ["json", { outputFile: jsonReportPath() }]],
  },
});
