import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

// bin.ts only wires run() to the process; the spawned-bin tests run it, but outside coverage.
export default defineConfig(
  packageTestConfig({ dir: import.meta.dirname, coverageExclude: ["src/bin.ts"], testTimeout: 60_000 }),
);
