/**
 * Starts a throwaway `redis-server` for tests on a free loopback port (no persistence) and stops it by
 * its pid. Outside CI an absent redis-server skips the suites that need it, loudly; with `CI=true`
 * it fails them instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

/** The redis-server binary on PATH (or /usr/bin), if any. */
export function findRedisServer(): string | undefined {
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter), "/usr/bin", "/usr/local/bin"];
  for (const dir of dirs) {
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Whether suites needing redis-server run. Prints a loud warning when they do not; throws under CI,
 * where nothing may skip.
 */
export function redisAvailable(suite: string): boolean {
  if (findRedisServer()) return true;
  if (process.env["CI"] === "true")
    throw new Error(`${suite}: redis-server is not installed, and CI=true forbids skipping`);
  console.warn(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
      `!!! ${suite}: SKIPPED, redis-server not found on PATH.\n` +
      `!!! Install it (apt-get install redis-server) to run it.\n` +
      `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
  );
  return false;
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A running redis-server. */
export interface TestRedis {
  port: number;
  pid: number;
  /** Stops it (SIGTERM to its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts redis-server on `port` (a free one by default) and waits until it accepts connections. */
export async function startRedis(port?: number): Promise<TestRedis> {
  const binary = findRedisServer();
  if (!binary) throw new Error("redis-server not found");
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(
    binary,
    ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    child.once("error", reject);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    port: chosen,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      await exited;
    },
  };
}
