import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

export default defineConfig(
  packageTestConfig({
    dir: import.meta.dirname,
    // bin.ts only wires process.argv and signals to runCli, which the tests drive directly.
    coverageExclude: ["src/bin.ts"],
  }),
);
