/** The Upstash benchmark (`bench/upstash-ratelimit.run.ts`), run by vitest for its TypeScript and the test harness. */
import { defineConfig } from "vitest/config";
import { redisBenchConfig } from "../../../testing/redis-bench.ts";

const config = redisBenchConfig(`${import.meta.dirname}/..`);
export default defineConfig({
  ...config,
  test: {
    ...config.test,
    include: ["bench/upstash-ratelimit.run.ts"],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
