/**
 * A real Redis Cluster for tests: three masters on free loopback ports (no replicas, no persistence),
 * joined by `redis-cli --cluster create`, ready once every node reports `cluster_state:ok`. Each
 * redis-server is started and stopped by its pid through testing/redis-server.ts; every wait has a
 * deadline. `useRedisCluster` is the suite lifecycle around it, as `useRedis` is for one server.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  freePort,
  startRedis,
  type TestRedis,
  type TestRedisClient,
  withFreshPorts,
} from "./redis-server.ts";
import { findProgram, programAvailable } from "./system-programs.ts";

/** How long the cluster may take to form (create, then `cluster_state:ok` everywhere). */
const FORM_DEADLINE_MS = 30_000;
/** How long one redis-cli call may take. */
const CLI_DEADLINE_MS = 10_000;

/**
 * Whether suites needing a Redis Cluster run: redis-server (redis-cli comes with it, package
 * redis-tools). Skips loudly outside CI; throws under CI, where nothing may skip.
 */
export function redisClusterAvailable(suite: string): boolean {
  return programAvailable("redis-server", suite);
}

/** Runs redis-cli with `args`, failing clearly past its deadline. Resolves to its standard output. */
export function redisCli(args: string[], deadlineMs = CLI_DEADLINE_MS): Promise<string> {
  const binary = findProgram("redis-cli");
  if (!binary)
    throw new Error("redis-cli not found (it comes with redis-server: apt-get install redis-tools)");
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: deadlineMs, killSignal: "SIGKILL" }, (error, stdout, stderr) => {
      if (error) {
        const why = error.killed ? `did not finish within ${deadlineMs} ms` : `failed: ${error.message}`;
        reject(new Error(`redis-cli ${args.join(" ")} ${why}\n${stdout}${stderr}`));
      } else resolve(stdout);
    });
  });
}

/** One master of a test cluster. */
export interface ClusterNode extends TestRedis {
  /** The port of its cluster bus. */
  busPort: number;
}

/** A running three-master test cluster. */
export interface TestRedisCluster {
  nodes: ClusterNode[];
  /** The node list a client starts from (`new Cluster(cluster.startup)`). */
  startup: { host: string; port: number }[];
  /** The node that holds `key`'s slot (asked of the cluster: `CLUSTER KEYSLOT`, `CLUSTER NODES`). */
  masterOf(key: string): Promise<ClusterNode>;
  /** Stops every node it started, by pid, and removes its config files. */
  stop(): Promise<void>;
}

/** `cluster_state:ok` on every node, or an error naming the state seen when the deadline passes. */
async function waitForClusterOk(ports: number[], deadlineAt: number): Promise<void> {
  let last = "";
  for (;;) {
    const states = await Promise.all(
      ports.map((port) =>
        redisCli(["-h", "127.0.0.1", "-p", String(port), "cluster", "info"]).catch((e: Error) => e.message),
      ),
    );
    if (states.every((info) => info.includes("cluster_state:ok"))) return;
    last = states.map((info, i) => `${ports[i]}: ${/cluster_state:\w+/.exec(info)?.[0] ?? info}`).join(", ");
    if (Date.now() > deadlineAt) throw new Error(`the test cluster did not reach cluster_state:ok: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts three `redis-server --cluster-enabled yes` on free loopback ports (bus ports chosen free too,
 * both chosen again when another process binds one first),
 * joins them with `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes` and waits for
 * `cluster_state:ok` on each. On any failure, every node started so far is stopped.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), "promo-review-cluster-"));
  const nodes: ClusterNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await withFreshPorts(async () => {
          const port = await freePort();
          const busPort = await freePort();
          const server = await startRedis(port, [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            join(dir, `nodes-${port}.conf`),
            "--cluster-port",
            String(busPort),
            // A killed master is marked failed within a second, not the default 15.
            "--cluster-node-timeout",
            "1000",
            "--dir",
            dir,
          ]);
          return { ...server, busPort };
        }),
      );
    }
    const deadlineAt = Date.now() + FORM_DEADLINE_MS;
    await redisCli(
      [
        "--cluster",
        "create",
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      FORM_DEADLINE_MS,
    );
    await waitForClusterOk(
      nodes.map((node) => node.port),
      deadlineAt,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const first = nodes[0]!.port;
  return {
    nodes,
    startup: nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
    masterOf: async (key) => {
      const slot = Number(
        await redisCli(["-h", "127.0.0.1", "-p", String(first), "cluster", "keyslot", key]),
      );
      const listing = await redisCli(["-h", "127.0.0.1", "-p", String(first), "cluster", "nodes"]);
      for (const line of listing.trim().split("\n")) {
        // <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot or range>...
        const fields = line.split(" ");
        if (!fields[2]?.includes("master")) continue;
        const port = Number(/:(\d+)@/.exec(fields[1] ?? "")?.[1]);
        const holds = fields.slice(8).some((range) => {
          const [from, to = from] = range.split("-").map(Number);
          return from !== undefined && slot >= from && slot <= to!;
        });
        const node = nodes.find((n) => n.port === port);
        if (holds && node) return node;
      }
      throw new Error(`no master of this cluster holds slot ${slot}:\n${listing}`);
    },
    stop,
  };
}

/** Options each test cluster client gets: quick retries, so a test that kills a node sees failures soon. */
export interface TestClusterClientOptions {
  clusterRetryStrategy: () => number;
  redisOptions: { maxRetriesPerRequest: number };
}

/** A suite's cluster, seen through the clients and key prefixes its tests use. */
export interface RedisClusterSuite<C> {
  /** A new client of the suite's cluster; disconnected after the suite. */
  connect(): C;
  /** A key prefix no other test, and no other process sharing the cluster, uses. */
  prefix(): string;
  /** The running cluster (inside tests and their hooks only). */
  cluster(): TestRedisCluster;
}

/**
 * Registers the hooks of the current `describe` (call it inside
 * `describe.runIf(redisClusterAvailable(...))`): one cluster started before its tests and stopped
 * after them, once every client made through `connect` is disconnected. Pass ioredis's `Cluster`.
 */
export function useRedisCluster<C extends TestRedisClient>(
  Client: new (startup: { host: string; port: number }[], options: TestClusterClientOptions) => C,
): RedisClusterSuite<C> {
  let running: TestRedisCluster | undefined;
  const clients: C[] = [];
  let seq = 0;
  const cluster = (): TestRedisCluster => {
    if (!running) throw new Error("useRedisCluster: the cluster runs only inside tests and their hooks");
    return running;
  };
  beforeAll(async () => {
    running = await startRedisCluster();
  }, FORM_DEADLINE_MS + 30_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await running?.stop();
  });
  return {
    connect: () => {
      const client = new Client(cluster().startup, {
        clusterRetryStrategy: () => 50,
        redisOptions: { maxRetriesPerRequest: 1 },
      });
      // Errors are expected once a test kills a node; the store under test reports them itself.
      client.on("error", () => {});
      clients.push(client);
      return client;
    },
    prefix: () => `test-${process.pid}-${seq++}:`,
    cluster,
  };
}
