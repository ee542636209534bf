/** The Redis store's suite again, against ioredis 6 (the peer range is `^5.0.0 || ^6.0.0`). */
import { defineConfig } from "vitest/config";
import { withIoredis6 } from "../../testing/ioredis-major.ts";
import { packageTestConfig } from "../../vitest.shared.ts";

const dir = import.meta.dirname;
export default defineConfig(withIoredis6(packageTestConfig({ dir }), { dir, files: ["src/redis.test.ts"] }));
