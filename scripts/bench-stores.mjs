// Shared by the store benchmarks of webhook-verify and rate-budget (`bench/stores.mjs` in each): one
// operation of each shared store measured the same way, one call at a time (as one receiver or one
// budget issues them) and with several in flight, beside the memory store. Redis is a throwaway
// redis-server on 127.0.0.1 (skipped, and said so, when none is installed); Deno KV runs in the real
// deno (the package's dev dependency) on a KV file in a temporary folder, measured inside deno by the
// package's `deno/bench-*.ts`, and every child process is killed by its pid past its deadline.
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { writeResult } from "./bench-output.mjs";

/** Calls per second of `call(i)`: `total` calls, `inFlight` at a time. */
export async function rate(call, { total, inFlight }) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await call(next++);
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

function findRedisServer() {
  for (const dir of [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/local/bin"]) {
    try {
      accessSync(join(dir, "redis-server"), constants.X_OK);
      return join(dir, "redis-server");
    } catch {}
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A throwaway redis-server on 127.0.0.1 (no persistence), or undefined when none is installed. */
export async function startRedis() {
  const binary = findRedisServer();
  if (!binary) return undefined;
  const port = await freePort();
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(child.pid, "SIGKILL");
      reject(new Error("redis-server did not start within 10 s"));
    }, 10_000);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { port, stop: () => process.kill(child.pid, "SIGTERM") };
}

/**
 * The Redis row: a throwaway redis-server, an ioredis client (`Redis`, the package's own), the store
 * `makeStore(client)` makes, measured twice (warm-up, then the figures) by `measure`; or a row saying
 * redis-server is not installed.
 */
export async function redisRow({ Redis, store: name, makeStore, measure }) {
  const redis = await startRedis();
  if (!redis) {
    console.error("bench: redis-server is not installed; the Redis row is not measured");
    return { store: name, where: "redis-server not installed" };
  }
  const client = new Redis({ host: "127.0.0.1", port: redis.port });
  try {
    const store = makeStore(client);
    await measure(store);
    return { store: name, where: "Node + ioredis, redis-server on 127.0.0.1", ...(await measure(store)) };
  } finally {
    client.disconnect();
    redis.stop();
  }
}

/**
 * Runs `script` (relative to `packageDir`) in deno with KV in a fresh temporary folder (read and write
 * of that folder only) and returns the JSON it prints last; killed by its pid after `timeoutMs`.
 */
export function runDenoBench(packageDir, script, args, timeoutMs = 120_000) {
  const dir = mkdtempSync(join(tmpdir(), "deno-kv-bench-"));
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(packageDir, "node_modules", ".bin", "deno"),
      [
        "run",
        "--no-prompt",
        "--no-lock",
        "--quiet",
        "--unstable-kv",
        `--allow-read=${dir}`,
        `--allow-write=${dir}`,
        script,
        join(dir, "bench.sqlite"),
        ...args,
      ],
      {
        cwd: packageDir,
        env: { ...process.env, DENO_DIR: join(dir, "deno-dir"), NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(child.pid, "SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      if (code === 0) resolve(JSON.parse(stdout.trim().split("\n").at(-1)));
      else reject(new Error(`deno ${script} exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

const fmt = (n) => (n === undefined ? "not measured" : Math.round(n).toLocaleString("en-US"));

/**
 * Writes bench/results/<file>.md (the smoke folder in a smoke run) and prints it: a table of stores by rows of
 * `{ store, where, sequential, concurrent, refused? }` (calls per second; refusals counted over both
 * columns), under `title` and `method`.
 */
export function writeStoresTable(file, { title, unit, method, rows }) {
  // A budget's decisions may refuse (a full window): say how many, so a fast refusal is not read as a fast admission.
  const refusals = rows.some((r) => r.refused !== undefined);
  const report = [
    `## ${title}`,
    "",
    `Node ${process.version}; ${method}`,
    "",
    `| store | where | ${unit} per second, 1 in flight | ${unit} per second, 16 in flight |${refusals ? " refused |" : ""}`,
    `| --- | --- | ---: | ---: |${refusals ? " ---: |" : ""}`,
    ...rows.map(
      (r) =>
        `| ${r.store} | ${r.where} | ${fmt(r.sequential)} | ${fmt(r.concurrent)} |${refusals ? ` ${fmt(r.refused)} |` : ""}`,
    ),
    "",
  ].join("\n");
  console.log(report);
  writeResult(file, report);
}
