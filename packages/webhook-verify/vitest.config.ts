import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

export default defineConfig(
  packageTestConfig({
    dir: import.meta.dirname,
    // Only the real-redis-server suite exercises these (see CONTRIBUTING, "Coverage when a suite skips").
    coverageNeeds: { "redis-server": ["src/redis.ts"] },
    // The Durable Object store runs in workerd: packages/runtime-proof/test/durable-objects*.test.ts
    // exercises it there, where V8 coverage of this Node process cannot see.
    coverageExclude: ["src/cloudflare.ts", "src/durable-object-store.ts", "src/replay-object.ts"],
  }),
);
