import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = import.meta.dirname;

/** The files the main entry loads, followed through relative imports. */
function mainEntryGraph(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(join(src, file), "utf8");
    seen.set(file, text);
    for (const [, spec] of text.matchAll(/from "(\.\/[^"]+)\.js"/g)) visit(`${spec!.slice(2)}.ts`);
  };
  visit("index.ts");
  return seen;
}

describe("the main entry is edge-safe", () => {
  const graph = mainEntryGraph();

  it("imports no Node built-in and no Redis client, and leaves the Redis store to its sub-path", () => {
    expect(graph.has("budget.ts")).toBe(true);
    expect(graph.has("redis.ts")).toBe(false);
    for (const [file, text] of graph) {
      expect({ file, node: /from "node:/.test(text) }).toEqual({ file, node: false });
      expect({ file, redis: /from "ioredis"/.test(text) }).toEqual({ file, redis: false });
      // No timer at module level: every setTimeout is inside a function (indented).
      expect({ file, timer: /^setTimeout|^setInterval|setInterval\(/m.test(text) }).toEqual({
        file,
        timer: false,
      });
    }
  });
});
