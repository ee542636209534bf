/**
 * README examples are code users copy first, so they run in the tests. This extracts every fenced
 * `ts` block of a README (except blocks preceded by `<!-- no-test -->`, used for shell-only or
 * deliberately partial snippets) and imports each one as a module, so a broken example fails CI.
 * A block preceded by `<!-- needs: redis-cluster -->` runs against a real three-master Redis Cluster
 * (testing/redis-cluster.ts) whose nodes it reads from `REDIS_CLUSTER_NODES` ("host:port,..."), as a
 * user's deployment would pass them; without redis-server it skips loudly outside CI, never under it.
 * A block preceded by `<!-- needs: upstash -->` runs against the local Upstash REST server in front
 * of a real redis-server (testing/upstash-rest.ts), found through `UPSTASH_REDIS_REST_URL` and
 * `UPSTASH_REDIS_REST_TOKEN`, as `Redis.fromEnv()` of `@upstash/redis` reads them on Vercel.
 * A block preceded by `<!-- needs: redis -->` runs against a real redis-server on 127.0.0.1, found
 * through `REDIS_URL` (`redis://127.0.0.1:<port>`), as a deployment passes it.
 * A block preceded by `<!-- deno -->` runs in the real deno instead (testing/deno.ts), with Deno KV
 * and `Deno.openKv()` landing in a temporary folder.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kvFolder, runDeno } from "./deno.ts";
import { redisClusterAvailable, startRedisCluster, type TestRedisCluster } from "./redis-cluster.ts";
import { redisAvailable, startRedis, type TestRedis } from "./redis-server.ts";
import { startUpstashRest, type UpstashRest } from "./upstash-rest.ts";

/** One runnable block of a README. */
export interface ReadmeExample {
  /** 1-based index among the README's runnable blocks. */
  index: number;
  /** The line of the README where the block starts, for error messages. */
  line: number;
  code: string;
  /** What the block needs running first (its `<!-- needs: ... -->` line). */
  needs?: "redis" | "redis-cluster" | "upstash" | undefined;
  /** Where it runs: Node (through vitest), or the real deno for a block marked `<!-- deno -->`. */
  runtime: "node" | "deno";
}

const NEEDS = /<!-- needs: (redis|redis-cluster|upstash) -->/;

/** Extracts the runnable TypeScript blocks of a README, in order. */
export function readmeExamples(readmePath: string): ReadmeExample[] {
  const lines = readFileSync(readmePath, "utf8").split("\n");
  const examples: ReadmeExample[] = [];
  let inBlock = false;
  let skip = false;
  let needs: ReadmeExample["needs"];
  let deno = false;
  let start = 0;
  let body: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!inBlock && /^```(ts|typescript)\s*$/.test(line)) {
      inBlock = true;
      start = i + 1;
      body = [];
      skip = (lines[i - 1] ?? "").includes("<!-- no-test -->");
      needs = NEEDS.exec(lines[i - 1] ?? "")?.[1] as ReadmeExample["needs"];
      deno = (lines[i - 1] ?? "").includes("<!-- deno -->");
    } else if (inBlock && /^```\s*$/.test(line)) {
      inBlock = false;
      if (!skip)
        examples.push({
          index: examples.length + 1,
          line: start,
          code: body.join("\n"),
          needs,
          runtime: deno ? "deno" : "node",
        });
    } else if (inBlock) {
      body.push(line);
    }
  }
  return examples;
}

/**
 * Writes an example into `<packageDir>/.readme-examples/` (git-ignored) and imports it, so the
 * package's own name resolves through the vitest alias to its sources. Returns the module.
 */
export async function runReadmeExample(packageDir: string, example: ReadmeExample): Promise<unknown> {
  const dir = join(packageDir, ".readme-examples");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `example-${example.index}-${process.pid}-${Date.now()}.ts`);
  writeFileSync(file, example.code);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * An import map sending the package's own name and sub-paths (their `default` export) to its sources,
 * as vitest's alias does for Node, so a deno example runs the code under test without a build.
 */
function sourceImportMap(packageDir: string): string {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  const imports: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const dist = typeof target === "string" ? target : target.default;
    if (!dist?.endsWith(".js")) continue;
    const source = join(packageDir, dist.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
    imports[subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = pathToFileURL(source).href;
  }
  return JSON.stringify({ imports });
}

/**
 * Runs a `<!-- deno -->` example in the real deno: written beside the package (so its dependencies
 * resolve from node_modules), with KV and Deno's cache in a fresh temporary folder, a deadline, and
 * a last line added that says it ran to the end.
 */
export async function runDenoReadmeExample(packageDir: string, example: ReadmeExample): Promise<void> {
  const dir = join(packageDir, ".readme-examples");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `deno-example-${example.index}-${process.pid}-${Date.now()}.ts`);
  const folder = kvFolder();
  const importMap = join(folder.dir, "import-map.json");
  writeFileSync(importMap, sourceImportMap(packageDir));
  writeFileSync(file, `${example.code}\nconsole.log(JSON.stringify({ finished: true }));\n`);
  try {
    expect(
      await runDeno({ packageDir, script: file, dir: folder.dir, importMap, timeoutMs: 60_000 }),
    ).toEqual({
      finished: true,
    });
  } finally {
    rmSync(file, { force: true });
    folder.remove();
  }
}

type Needs = NonNullable<ReadmeExample["needs"]>;

/** What a `<!-- needs: ... -->` block runs against: started once before its blocks, stopped after. */
interface NeededServers {
  name: string;
  /** Whether the servers can start here (says so loudly when not; throws under CI). */
  available(suite: string): boolean;
  /** Starts them and sets the environment the blocks read; answers what stops them. */
  start(): Promise<() => Promise<void>>;
}

const NEEDED: Record<Needs, NeededServers> = {
  redis: {
    name: "against a real redis-server",
    available: redisAvailable,
    async start() {
      const redis: TestRedis = await startRedis();
      process.env["REDIS_URL"] = `redis://127.0.0.1:${redis.port}`;
      return async () => {
        delete process.env["REDIS_URL"];
        await redis.stop();
      };
    },
  },
  "redis-cluster": {
    name: "against a real Redis Cluster",
    available: redisClusterAvailable,
    async start() {
      const cluster: TestRedisCluster = await startRedisCluster();
      process.env["REDIS_CLUSTER_NODES"] = cluster.startup.map((n) => `${n.host}:${n.port}`).join(",");
      return async () => {
        delete process.env["REDIS_CLUSTER_NODES"];
        await cluster.stop();
      };
    },
  },
  upstash: {
    name: "against the local Upstash REST server",
    available: redisAvailable,
    async start() {
      const redis: TestRedis = await startRedis();
      let rest: UpstashRest;
      try {
        rest = await startUpstashRest({ redisPort: redis.port });
      } catch (error) {
        await redis.stop();
        throw error;
      }
      process.env["UPSTASH_REDIS_REST_URL"] = rest.url;
      process.env["UPSTASH_REDIS_REST_TOKEN"] = rest.token;
      return async () => {
        delete process.env["UPSTASH_REDIS_REST_URL"];
        delete process.env["UPSTASH_REDIS_REST_TOKEN"];
        await rest.close();
        await redis.stop();
      };
    },
  },
};

/**
 * The README test every package runs: one test per runnable block, named after its line, plus a check
 * that the README has one at all (a README must start with a runnable example).
 */
export function testReadmeExamples(packageDir: string): void {
  describe("README examples run", () => {
    const examples = readmeExamples(join(packageDir, "README.md"));
    it("has at least one example", () => expect(examples.length).toBeGreaterThan(0));
    for (const example of examples.filter((e) => e.needs === undefined)) {
      it(`example ${example.index} (README line ${example.line})`, async () => {
        if (example.runtime === "deno") await runDenoReadmeExample(packageDir, example);
        else await runReadmeExample(packageDir, example);
      });
    }
    for (const [needs, servers] of Object.entries(NEEDED) as [Needs, NeededServers][]) {
      const group = examples.filter((e) => e.needs === needs);
      if (group.length === 0) continue;
      describe.runIf(servers.available(`README ${needs} examples of ${packageDir}`))(servers.name, () => {
        let stop: (() => Promise<void>) | undefined;
        beforeAll(async () => {
          stop = await servers.start();
        }, 60_000);
        afterAll(async () => {
          await stop?.();
        });
        for (const example of group) {
          it(`example ${example.index} (README line ${example.line})`, async () => {
            await runReadmeExample(packageDir, example);
          });
        }
      });
    }
  });
}
