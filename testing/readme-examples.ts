/**
 * README examples are code users copy first, so they run in the tests. This extracts every fenced
 * `ts` block of a README (except blocks preceded by `<!-- no-test -->`, used for shell-only or
 * deliberately partial snippets) and imports each one as a module, so a broken example fails CI.
 * A block preceded by `<!-- needs: redis-cluster -->` runs against a real three-master Redis Cluster
 * (testing/redis-cluster.ts) whose nodes it reads from `REDIS_CLUSTER_NODES` ("host:port,..."), as a
 * user's deployment would pass them; without redis-server it skips loudly outside CI, never under it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisClusterAvailable, startRedisCluster, type TestRedisCluster } from "./redis-cluster.ts";

/** One runnable block of a README. */
export interface ReadmeExample {
  /** 1-based index among the README's runnable blocks. */
  index: number;
  /** The line of the README where the block starts, for error messages. */
  line: number;
  code: string;
  /** What the block needs running first (its `<!-- needs: ... -->` line). */
  needs?: "redis-cluster";
}

const NEEDS = /<!-- needs: (redis-cluster) -->/;

/** Extracts the runnable TypeScript blocks of a README, in order. */
export function readmeExamples(readmePath: string): ReadmeExample[] {
  const lines = readFileSync(readmePath, "utf8").split("\n");
  const examples: ReadmeExample[] = [];
  let inBlock = false;
  let skip = false;
  let needs: ReadmeExample["needs"];
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
    } else if (inBlock && /^```\s*$/.test(line)) {
      inBlock = false;
      if (!skip)
        examples.push({
          index: examples.length + 1,
          line: start,
          code: body.join("\n"),
          ...(needs ? { needs } : {}),
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
 * The README test every package runs: one test per runnable block, named after its line, plus a check
 * that the README has one at all (a README must start with a runnable example).
 */
export function testReadmeExamples(packageDir: string): void {
  describe("README examples run", () => {
    const examples = readmeExamples(join(packageDir, "README.md"));
    it("has at least one example", () => expect(examples.length).toBeGreaterThan(0));
    for (const example of examples.filter((e) => e.needs === undefined)) {
      it(`example ${example.index} (README line ${example.line})`, async () => {
        await runReadmeExample(packageDir, example);
      });
    }
    const clustered = examples.filter((e) => e.needs === "redis-cluster");
    if (clustered.length > 0) {
      describe.runIf(redisClusterAvailable(`README Redis Cluster examples of ${packageDir}`))(
        "against a real Redis Cluster",
        () => {
          let cluster: TestRedisCluster | undefined;
          beforeAll(async () => {
            cluster = await startRedisCluster();
            process.env["REDIS_CLUSTER_NODES"] = cluster.startup.map((n) => `${n.host}:${n.port}`).join(",");
          }, 60_000);
          afterAll(async () => {
            delete process.env["REDIS_CLUSTER_NODES"];
            await cluster?.stop();
          });
          for (const example of clustered) {
            it(`example ${example.index} (README line ${example.line})`, async () => {
              await runReadmeExample(packageDir, example);
            });
          }
        },
      );
    }
  });
}
