/** The Redis store benchmark (`bench/redis.run.ts`), run by vitest for its TypeScript and the test harness. */
import { defineConfig } from "vitest/config";
import { redisBenchConfig } from "../../../testing/redis-bench.ts";

export default defineConfig(redisBenchConfig(`${import.meta.dirname}/..`));
