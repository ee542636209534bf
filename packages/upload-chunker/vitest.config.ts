import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

export default defineConfig(
  packageTestConfig({
    dir: import.meta.dirname,
    testTimeout: 120_000,
    // Only the real-redis-server suite exercises this (see CONTRIBUTING, "Coverage when a suite skips").
    coverageNeeds: { "redis-server": ["src/redis.ts"] },
  }),
);
