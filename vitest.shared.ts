/**
 * The one vitest configuration every package extends: V8 coverage over `src/`, the 90% line floor the
 * test task enforces, and an alias from the package's own name to its sources so that README examples
 * (which import the package by name, as a user would) run against `src/` and count for coverage.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ViteUserConfig } from "vitest/config";
import { findProgram, type SystemProgram, skippingForbidden } from "./testing/system-programs.ts";

type ExportTarget = string | { [condition: string]: ExportTarget };

function firstDistPath(target: ExportTarget): string | undefined {
  if (typeof target === "string") return target.endsWith(".js") ? target : undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (condition === "types") continue;
    const found = firstDistPath(value);
    if (found) return found;
  }
  return undefined;
}

/**
 * Aliases `@promo-review/<pkg>[/sub]` to the matching `src/*.ts`, read from the package's exports map,
 * and the package's own `#imports` (their first runtime condition, `node` where there is one) likewise.
 */
export function selfAliases(packageDir: string): { find: RegExp; replacement: string }[] {
  const pkg = JSON.parse(readFileSync(resolve(packageDir, "package.json"), "utf8")) as {
    name: string;
    exports?: Record<string, ExportTarget>;
    imports?: Record<string, ExportTarget>;
  };
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath.endsWith(".json")) continue;
    const dist = firstDistPath(target);
    if (!dist) continue;
    const source = dist.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts");
    const specifier = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
    const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    aliases.push({ find: new RegExp(`^${escaped}$`), replacement: resolve(packageDir, source) });
  }
  for (const [specifier, target] of Object.entries(pkg.imports ?? {})) {
    const dist = firstDistPath(target);
    if (!dist) continue;
    const source = dist.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts");
    aliases.push({ find: new RegExp(`^${specifier}$`), replacement: resolve(packageDir, source) });
  }
  return aliases;
}

/** Options a package may add to the shared configuration. */
export interface PackageTestOptions {
  /** Absolute path of the package (pass `import.meta.dirname`). */
  dir: string;
  /** Per-test timeout; integration tests against the simulator get more than the default. */
  testTimeout?: number;
  /** Files excluded from coverage, beyond tests (for example a CLI entry that only parses argv). */
  coverageExclude?: string[];
  /** Run test files one after another (for suites that bind ports or spawn processes). */
  sequential?: boolean;
  /**
   * Source files that only a suite needing a system program exercises, by program (for example
   * `{ "redis-server": ["src/redis.ts"] }`). When the program is absent outside CI, that suite skips
   * and these files leave coverage, so a machine without the program measures only what ran; with
   * `CI=true` nothing skips and they are always measured. See CONTRIBUTING, "Coverage when a suite skips".
   */
  coverageNeeds?: Partial<Record<SystemProgram, string[]>>;
}

/**
 * The files to leave out of coverage because the one suite that exercises them skips on this machine.
 * Says so loudly, next to the suite's own skip message, so a reader of the run sees both.
 */
export function unmeasuredWithout(needs: Partial<Record<SystemProgram, string[]>> = {}): string[] {
  if (skippingForbidden()) return [];
  const unmeasured: string[] = [];
  for (const [program, files] of Object.entries(needs) as [SystemProgram, string[]][]) {
    if (findProgram(program)) continue;
    console.warn(`!!! coverage: ${program} is absent, so ${files.join(", ")} are not measured in this run`);
    unmeasured.push(...files);
  }
  return unmeasured;
}

/** Where the JSON report goes: `VITEST_JSON_REPORT` when set (CI steps), else the package's coverage/. */
export function jsonReportPath(): string {
  return process.env["VITEST_JSON_REPORT"] || "coverage/vitest-results.json";
}

/** Builds the vitest configuration for one package. */
export function packageTestConfig(options: PackageTestOptions): ViteUserConfig {
  return {
    resolve: { alias: selfAliases(options.dir) },
    test: {
      root: options.dir,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      setupFiles: [fileURLToPath(new URL("./testing/fast-check-seed.ts", import.meta.url))],
      testTimeout: options.testTimeout ?? 30_000,
      hookTimeout: 60_000,
      ...(options.sequential ? { fileParallelism: false } : {}),
      // The JSON report feeds the one-line total that .ci/run prints (scripts/test-summary.mjs); a CI
      // step points it elsewhere (VITEST_JSON_REPORT) so that its runs neither clobber nor race it.
      reporters: ["default", ["json", { outputFile: jsonReportPath() }]],
      coverage: {
        provider: "v8",
        include: ["src/**/*.ts"],
        exclude: [
          "src/**/*.test.ts",
          "src/**/*.d.ts",
          ...(options.coverageExclude ?? []),
          ...unmeasuredWithout(options.coverageNeeds),
        ],
        reporter: ["text-summary", "json-summary"],
        thresholds: { lines: 90 },
      },
    },
  };
}
