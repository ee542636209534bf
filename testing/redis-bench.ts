/**
 * The Redis store benchmarks (decisions, claims per second on loopback, one Redis and a three-master
 * Redis Cluster), run by vitest as a TypeScript runner (`bench/redis.run.ts` of a package, with
 * `bench/vitest.redis.config.ts`), so that they start servers through the same harness as the tests.
 * Figures are printed and written to bench/results/<name>.md, never asserted.
 */
import { loadavg } from "node:os";
import type { ViteUserConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs helper of the repository, typed by use here.
import { writeResult } from "../scripts/bench-output.mjs";
import { packageTestConfig } from "../vitest.shared.ts";
import { type TestClusterClientOptions, useRedisCluster } from "./redis-cluster.ts";
import { type TestRedisClient, type TestRedisClientOptions, useRedis } from "./redis-server.ts";

/** How each benchmark measures: runs (`BENCH_RUNS`, default 3), each of `ms`, `inFlight` calls at a time. */
export const BENCH = { runs: Number(process.env["BENCH_RUNS"] ?? 3), ms: 1000, inFlight: 64 };

/** The vitest configuration of a package's `bench/redis.run.ts` (`dir`: the package). */
export function redisBenchConfig(dir: string): ViteUserConfig {
  const base = packageTestConfig({ dir, sequential: true });
  return {
    ...base,
    test: {
      ...base.test,
      include: ["bench/redis.run.ts"],
      coverage: { enabled: false },
      reporters: ["default"],
      testTimeout: 120_000,
    },
  };
}

/** Where a benchmark runs: a name for its rows, a client of it, and fresh key prefixes. */
export interface RedisTarget<C> {
  name: string;
  connect(): C;
  prefix(): string;
}

/**
 * Registers the hooks of one redis-server and one three-master cluster (call it inside the
 * benchmark's `describe`), and answers both as targets. Pass ioredis's `Redis` and `Cluster`.
 */
export function useRedisTargets<R extends TestRedisClient, C extends TestRedisClient>(
  Redis: new (options: TestRedisClientOptions) => R,
  Cluster: new (startup: { host: string; port: number }[], options: TestClusterClientOptions) => C,
): () => RedisTarget<R | C>[] {
  const single = useRedis(Redis);
  const cluster = useRedisCluster(Cluster);
  return () => [
    { name: "one redis-server", connect: () => single.connect(), prefix: single.prefix },
    { name: "Redis Cluster, 3 masters", connect: () => cluster.connect(), prefix: cluster.prefix },
  ];
}

/** Runs `call` with `inFlight` calls at a time for `ms`; answers calls per second. */
export async function callsPerSecond(
  call: (i: number) => Promise<unknown>,
  options: { inFlight: number; ms: number },
): Promise<number> {
  let done = 0;
  let seq = 0;
  const start = performance.now();
  const until = start + options.ms;
  await Promise.all(
    Array.from({ length: options.inFlight }, async () => {
      while (performance.now() < until) {
        await call(seq++);
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** One row: a name and its rate in each run. */
export interface RateRow {
  name: string;
  rates: number[];
}

/** `median (min–max)` of the runs, in thousands per second. */
function cell(rates: number[]): string {
  const sorted = [...rates].sort((a, b) => a - b);
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  return `${k(sorted[Math.floor(sorted.length / 2)]!)} (${k(sorted[0]!)}–${k(sorted.at(-1)!)})`;
}

/** Writes bench/results/<file> (the smoke folder in a smoke run): a title, the method, one table; and prints it. */
export function writeRateTable(options: {
  file: string;
  title: string;
  method: string;
  unit: string;
  rows: RateRow[];
}): void {
  const lines = [
    `# ${options.title}`,
    "",
    `Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the end, ${new Date().toISOString()}. ${options.method}`,
    "",
    `| store | ${options.unit} per second, median (min–max) |`,
    "| --- | --- |",
    ...options.rows.map((row) => `| ${row.name} | ${cell(row.rates)} |`),
    "",
  ];
  const text = lines.join("\n");
  // bench/results, or the smoke folder in a smoke run (BENCH_SMOKE=1), which must leave bench/ as it is.
  writeResult(options.file.replace(/\.md$/, ""), text);
  console.log(text);
}
