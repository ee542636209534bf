/**
 * Types that compile everywhere users are: the packed tarballs, installed with plain npm into a fresh
 * project outside the workspace, type-check with `skipLibCheck: false` (every published `.d.ts` is
 * checked, ours and our dependencies') under each configuration a user may have:
 *
 * - a Node-only lib (`"lib": ["ES2022"]`, `"types": ["node"]`: no DOM, so no global `BodyInit`);
 * - `exactOptionalPropertyTypes`, with settings read straight from `process.env` (`string | undefined`);
 * - a CommonJS `.cts` file: a plain import under `module: nodenext`; under `module: node16` (where
 *   TypeScript refuses to `require()` an ES module, TS1479) an import type with `resolution-mode` and a
 *   dynamic `import()`, as the sdk README says;
 * - `moduleResolution: node10`, which cannot read an exports map: every sub-path resolves through
 *   `typesVersions`.
 *
 * Every entry point of every package (read from the exports maps, so a new sub-path is covered the day
 * it is added) is imported in each configuration; `fixtures/types/` holds what a user writes.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./harness/bundle.ts";
import { npmInstall, plainNpmEnv } from "./harness/npm-install.ts";
import { packAll, publishablePackages, ROOT } from "./harness/workspace.ts";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const FIXTURES = join(PACKAGE_DIR, "test", "fixtures", "types");
const NPM_CACHE = join(tmpdir(), "promo-review-proof-npm-cache");
/** One tsc run's deadline: minutes on a busy two-core machine, never unbounded. */
const TSC_DEADLINE_MS = 300_000;
const packages = publishablePackages();

/** Every import specifier a user may write: each package and each of its exported sub-paths. */
const entryPoints = packages.flatMap((p) =>
  Object.keys(p.manifest.exports ?? { ".": "" })
    .filter((subpath) => !subpath.endsWith(".json"))
    .map((subpath) => (subpath === "." ? p.manifest.name : `${p.manifest.name}/${subpath.slice(2)}`)),
);

/** Checks every published `.d.ts`, strictly, without writing anything. */
const STRICT = { strict: true, skipLibCheck: false, noEmit: true, target: "ES2022", types: ["node"] };

let consumer: string;

beforeAll(async () => {
  consumer = mkdtempSync(join(tmpdir(), "promo-review-types-"));
  const tarballs = await packAll(packages, join(consumer, "tarballs"));
  const project = join(consumer, "project");
  mkdirSync(project);
  const tgz = (name: string) => `file:${tarballs.get(name)}`;
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "types-consumer",
      private: true,
      type: "module",
      dependencies: {
        ...Object.fromEntries([...tarballs.keys()].map((name) => [name, tgz(name)])),
        "@types/node": "^20.19.0",
      },
      overrides: Object.fromEntries([...tarballs.keys()].map((name) => [name, tgz(name)])),
    }),
  );
  await npmInstall({ cwd: project, what: "the types consumer", env: plainNpmEnv(NPM_CACHE) });
  cpSync(FIXTURES, project, { recursive: true });
  writeFileSync(
    join(project, "entries.ts"),
    `${entryPoints.map((e, i) => `import * as entry${i} from ${JSON.stringify(e)};`).join("\n")}\n` +
      `export const entries = [${entryPoints.map((_, i) => `entry${i}`).join(", ")}];\n`,
  );
  // Packing ten packages and an npm install take minutes on a busy two-core machine.
}, 600_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/** Runs tsc on `files` with `compilerOptions` in the consumer project; returns its exit code and output. */
async function typecheck(
  name: string,
  compilerOptions: Record<string, unknown>,
  files: string[],
): Promise<{ code: number; output: string }> {
  const project = join(consumer, "project");
  const tsconfig = `tsconfig.${name}.json`;
  writeFileSync(join(project, tsconfig), JSON.stringify({ compilerOptions, files }, null, 2));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [TSC, "-p", tsconfig], {
      cwd: project,
      timeout: TSC_DEADLINE_MS,
      killSignal: "SIGKILL",
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; killed?: boolean; stdout?: string; stderr?: string };
    const output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
    if (failed.killed) {
      return {
        code: 1,
        output: `tsc -p ${tsconfig} did not finish in ${TSC_DEADLINE_MS / 1000} s (killed)\n${output}`,
      };
    }
    return { code: failed.code ?? 1, output };
  }
}

/** tsc loads every package's types and @types/node: up to minutes per run on a busy two-core machine. */
const TSC_TIMEOUT = 600_000;

/** Asserts that `files` type-check cleanly with `compilerOptions`. */
async function expectCompiles(name: string, compilerOptions: Record<string, unknown>, files: string[]) {
  const result = await typecheck(name, compilerOptions, files);
  expect(result.output).toBe("");
  expect(result.code).toBe(0);
}

describe("the set of entry points", () => {
  it("is every package and every sub-path of its exports map", () => {
    expect(entryPoints).toContain("@promo-review/sdk");
    expect(entryPoints).toContain("@promo-review/sdk/node");
    expect(entryPoints.length).toBeGreaterThan(packages.length);
  });
});

describe("a Node-only lib (ES2022 and @types/node, no DOM) with exactOptionalPropertyTypes", () => {
  it(
    "compiles every entry point and createClient({ apiKey: process.env.KEY, ... }), every .d.ts checked",
    async () => {
      await expectCompiles(
        "node-lib",
        {
          ...STRICT,
          exactOptionalPropertyTypes: true,
          lib: ["ES2022"],
          module: "nodenext",
          moduleResolution: "nodenext",
        },
        ["entries.ts", "use.ts"],
      );
    },
    TSC_TIMEOUT,
  );
});

describe("the DOM lib and bundler resolution with exactOptionalPropertyTypes (a front-end project)", () => {
  it(
    "compiles every entry point and the user's code",
    async () => {
      await expectCompiles(
        "dom-bundler",
        {
          ...STRICT,
          exactOptionalPropertyTypes: true,
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          module: "esnext",
          moduleResolution: "bundler",
        },
        ["entries.ts", "use.ts"],
      );
    },
    TSC_TIMEOUT,
  );
});

describe("a CommonJS .cts file", () => {
  const cjs = { ...STRICT, lib: ["ES2022"] };

  it(
    "imports the SDK as usual under module nodenext (require() of ES modules)",
    async () => {
      await expectCompiles("cts-nodenext", { ...cjs, module: "nodenext" }, ["require.cts"]);
    },
    TSC_TIMEOUT,
  );

  it(
    "under module node16 compiles as the sdk README says (import type with resolution-mode, import()), and a plain import fails there with TS1479 only",
    async () => {
      const result = await typecheck("cts-node16", { ...cjs, module: "node16" }, [
        "dynamic.cts",
        "require.cts",
      ]);
      const errors = result.output.split("\n").filter((line) => line.includes("error TS"));
      expect(errors.length).toBeGreaterThan(0);
      for (const line of errors) expect(line).toMatch(/^require\.cts\(\d+,\d+\): error TS1479:/);
      expect(result.code).not.toBe(0);
    },
    TSC_TIMEOUT,
  );
});

describe("moduleResolution node10: every sub-path resolves through typesVersions", () => {
  it(
    "compiles an import of every entry point",
    async () => {
      await expectCompiles(
        "node10",
        { ...STRICT, lib: ["ES2022", "DOM"], module: "commonjs", moduleResolution: "node10" },
        ["entries.ts"],
      );
    },
    TSC_TIMEOUT,
  );
});
