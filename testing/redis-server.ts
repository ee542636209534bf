/**
 * Starts a throwaway `redis-server` for tests on a free loopback port (no persistence) and stops it by
 * its pid. Outside CI an absent redis-server skips the suites that need it, loudly; with `CI=true`
 * it fails them instead. `useRedis` is the one suite lifecycle around it (server, clients, key
 * prefixes) for every package that tests a Redis-backed store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { findProgram, programAvailable } from "./system-programs.ts";

/** The redis-server binary on PATH (or /usr/bin, /usr/local/bin), if any. */
export function findRedisServer(): string | undefined {
  return findProgram("redis-server");
}

/**
 * Whether suites needing redis-server run. Prints a loud warning when they do not; throws under CI,
 * where nothing may skip.
 */
export function redisAvailable(suite: string): boolean {
  return programAvailable("redis-server", suite);
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
  /**
   * Stops it (SIGTERM to its pid, or `signal`: SIGKILL is a crash) and waits for it to exit. Stopping
   * one that has exited already does nothing.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** How many times a start on ports chosen free is tried before its last error is thrown. */
const PORT_RACE_ATTEMPTS = 5;

/**
 * Runs `start` (which chooses its ports with `freePort`) again when redis-server exits because a port
 * was taken: a port asked of the OS is released before redis-server binds it, and a suite running
 * beside may bind it in between. No check beforehand can close that race; choosing again does.
 */
export async function withFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const lost = error instanceof Error && error.message.includes("Address already in use");
      if (!lost || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Starts redis-server on `port` (a free one by default, chosen again if another process binds it first)
 * and waits until it accepts connections, with a deadline. `extraArgs` are added to the command line
 * (the cluster harness passes its own).
 */
export async function startRedis(port?: number, extraArgs: string[] = []): Promise<TestRedis> {
  if (port === undefined) return withFreshPorts(async () => startRedisOn(await freePort(), extraArgs));
  return startRedisOn(port, extraArgs);
}

/** Starts redis-server on `chosen` and waits until it accepts connections, with a deadline. */
async function startRedisOn(chosen: number, extraArgs: string[]): Promise<TestRedis> {
  const binary = findRedisServer();
  if (!binary) throw new Error("redis-server not found");
  const child: ChildProcess = spawn(
    binary,
    ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) resolve();
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
      child.once("error", reject);
      timer = setTimeout(
        () => reject(new Error(`redis-server on port ${chosen} was not ready within 10 s: ${output}`)),
        10_000,
      );
    });
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    port: chosen,
    pid: child.pid!,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      await exited;
    },
  };
}

/**
 * The options each test client gets: loopback, one attempt per command and a reconnect every 50 ms, so
 * a test that stops a server sees the store's failure quickly rather than ioredis's long retries.
 * Shaped like ioredis's own options, so `new Redis(options)` fits without this file importing ioredis
 * (only the packages that test against Redis depend on it, and testing/ sits outside them).
 */
export interface TestRedisClientOptions {
  host: string;
  port: number;
  maxRetriesPerRequest: number;
  retryStrategy: () => number;
}

/** The part of an ioredis client the suite lifecycle uses. */
export interface TestRedisClient {
  on(event: "error", listener: (error: Error) => void): unknown;
  disconnect(): void;
}

/** A suite's redis-server, seen through the clients and key prefixes its tests use. */
export interface RedisSuite<C> {
  /**
   * A new client of the suite's server, or of `port` (a server the test started itself). Every
   * client is disconnected after the suite, so none keeps the process alive.
   */
  connect(port?: number): C;
  /** A key prefix no other test, and no other process sharing the server, uses. */
  prefix(): string;
}

/**
 * Registers the hooks of the current `describe` (call it inside `describe.runIf(redisAvailable(...))`):
 * one redis-server started before its tests and stopped after them, once every client made through
 * `connect` is disconnected. Pass the client class: `const { connect, prefix } = useRedis(Redis)`.
 */
export function useRedis<C extends TestRedisClient>(
  Client: new (options: TestRedisClientOptions) => C,
): RedisSuite<C> {
  let server: TestRedis | undefined;
  const clients: C[] = [];
  let seq = 0;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });
  return {
    connect: (port) => {
      const target = port ?? server?.port;
      if (target === undefined)
        throw new Error("useRedis: the server runs only inside tests and their hooks");
      const client = new Client({
        host: "127.0.0.1",
        port: target,
        maxRetriesPerRequest: 1,
        retryStrategy: () => 50,
      });
      // Connection errors are expected once a test stops a server; the store under test reports them itself.
      client.on("error", () => {});
      clients.push(client);
      return client;
    },
    prefix: () => `test-${process.pid}-${seq++}:`,
  };
}
