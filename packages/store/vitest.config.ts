import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

export default defineConfig(
  packageTestConfig({
    dir: import.meta.dirname,
    sequential: true,
    // Only the real-redis-server suite exercises these (see CONTRIBUTING, "Coverage when a suite skips").
    coverageNeeds: { "redis-server": ["src/redis.ts", "src/redis-script.ts", "src/upstash.ts"] },
  }),
);
