import { defineConfig } from "vitest/config";
import { packageTestConfig } from "../../vitest.shared.ts";

// Sequential: suites start redis-server, the simulator and eight worker processes, and the
// multi-process run must not share the CPU with other suites (its margin is tens of ms).
export default defineConfig(
  packageTestConfig({
    dir: import.meta.dirname,
    sequential: true,
    // Only the real-redis-server suites exercise these (see CONTRIBUTING, "Coverage when a suite skips").
    coverageNeeds: { "redis-server": ["src/redis.ts"] },
    // The Durable Object store runs in workerd: packages/runtime-proof/test/durable-objects*.test.ts
    // exercises it there, where V8 coverage of this Node process cannot see.
    coverageExclude: ["src/budget-object.ts", "src/cloudflare.ts", "src/durable-object-store.ts"],
  }),
);
