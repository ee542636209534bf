/**
 * Published shape: every package that would be published passes publint and
 * @arethetypeswrong/cli, and its `pnpm pack` tarball, installed with plain npm into a fresh project
 * outside the workspace, works alone and brings only what it declares.
 *
 * attw runs with `--profile node16 --ignore-rules cjs-resolves-to-esm`: the node16 profile checks the
 * `node16` (CommonJS and ESM importers) and `bundler` resolutions and leaves out only `node10`, which
 * cannot read an exports map. In the CommonJS mode the one rule ignored is "CJS resolves to ESM": attw
 * (TypeScript 5.6) still calls that an error, but Node >= 20.19 (our engines floor) `require()`s ES
 * modules, which the runtime tests prove. Every other problem in that mode (no types, wrong format,
 * failed resolution) still fails, so the types do resolve for a CommonJS `require`.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import type { Simulator } from "@promo-review/simulator";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./harness/bundle.ts";
import {
  ALLOWED_DEPENDENCIES,
  CJS_EXPORT,
  CONSUMER_USAGE,
  FORBIDDEN_IN_TREE,
  REPORTED_DEPENDENCY_GAPS,
} from "./harness/consumers.ts";
import { npmInstall, plainNpmEnv } from "./harness/npm-install.ts";
import { endpointsOf, startProofSimulator } from "./harness/simulator.ts";
import { type Manifest, packAll, publishablePackages, ROOT, readManifest } from "./harness/workspace.ts";

const ATTW_FLAGS = ["--profile", "node16", "--ignore-rules", "cjs-resolves-to-esm", "--no-definitely-typed"];

interface AttwReport {
  analysis: {
    types: unknown;
    entrypoints?: Record<
      string,
      { subpath: string; resolutions: Record<string, { resolution?: { fileName: string } }> }
    >;
    problems?: { kind: string; resolutionKind?: string }[];
  };
}

const packages = publishablePackages();
const ownManifest = readManifest(PACKAGE_DIR);
// npm's cache is shared between runs, outside the workspace, so installs after the first are offline-fast.
const NPM_CACHE = join(tmpdir(), "promo-review-proof-npm-cache");

let work: string;
let tarballs = new Map<string, string>();
let sim: Simulator;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "promo-review-proof-"));
  expect(relative(ROOT, work).startsWith("..")).toBe(true);
  tarballs = await packAll(packages, join(work, "tarballs"));
  sim = await startProofSimulator();
});

afterAll(async () => {
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the set of publishable packages", () => {
  it("each is a dependency of runtime-proof, so turbo builds it before these tests and every test covers it", () => {
    const declared = Object.keys(ownManifest.devDependencies ?? {});
    expect(packages.length).toBeGreaterThanOrEqual(2);
    expect(packages.map((p) => p.manifest.name).filter((name) => !declared.includes(name))).toEqual([]);
  });
});

describe.each(packages.map((p) => [p.manifest.name, p] as const))("%s", (name, pkg) => {
  it("passes publint (warnings count as errors)", async () => {
    const tarball = readFileSync(tarballs.get(name)!);
    const { messages, pkg: manifest } = await publint({
      pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
      level: "suggestion",
      strict: true,
    });
    const text = messages.map((m) => `${m.type}: ${formatMessage(m, manifest, { color: false })}`);
    expect(text).toEqual([]);
  });

  it("passes @arethetypeswrong/cli: types resolve for node16 (ESM and CommonJS require) and bundler", () => {
    const result = spawnSync(
      join(PACKAGE_DIR, "node_modules", ".bin", "attw"),
      [tarballs.get(name)!, ...ATTW_FLAGS, "--format", "json"],
      // Killed by its pid when the deadline passes (result.error says so): a check never hangs.
      { encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" },
    );
    expect(result.error, `attw on ${name} did not finish in 120 s`).toBeUndefined();
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const report = JSON.parse(result.stdout) as AttwReport;
    // attw exits 0 for a package without types at all, so that is checked here.
    expect(report.analysis.types, "attw found no types in the tarball").not.toBe(false);
    const entrypoints = Object.values(report.analysis.entrypoints ?? {}).filter(
      (e) => !e.subpath.endsWith(".json"),
    );
    expect(entrypoints.length).toBeGreaterThan(0);
    for (const entry of entrypoints) {
      for (const mode of ["node16-cjs", "node16-esm", "bundler"]) {
        const file = entry.resolutions[mode]?.resolution?.fileName ?? "";
        expect(file, `${entry.subpath} under ${mode}`).toMatch(/\.d\.(ts|mts|cts)$/);
      }
    }
    // The JSON lists every problem; the accepted one is CommonJS resolving to ESM (see the header).
    const problems = (report.analysis.problems ?? []).filter(
      (p) => !(p.kind === "CJSResolvesToESM" || p.resolutionKind === "node10"),
    );
    expect(problems).toEqual([]);
  });

  it("ships the MIT LICENSE and names its repository (with its folder), homepage and bugs", () => {
    const unpacked = unpack(name);
    const license = readFileSync(join(unpacked, "LICENSE"), "utf8");
    expect(license).toBe(readFileSync(join(ROOT, "LICENSE"), "utf8"));
    expect(license).toMatch(/^MIT License/);
    const manifest = JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8")) as PublishedManifest;
    expect(manifest.license).toBe("MIT");
    expect(manifest.repository).toEqual({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/),
      directory: `packages/${pkg.dir}`,
    });
    expect(manifest.homepage).toMatch(new RegExp(`^https://github\\.com/.+/packages/${pkg.dir}#readme$`));
    expect(manifest.bugs?.url).toMatch(/^https:\/\/github\.com\/.+\/issues$/);
  });

  it("has source maps and declaration maps that resolve to the shipped sources", () => {
    const unpacked = unpack(name);
    const maps = filesUnder(join(unpacked, "dist")).filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    let functionsMapped = 0;
    for (const mapFile of maps) {
      const payload = JSON.parse(readFileSync(mapFile, "utf8")) as SourceMapPayload;
      expect(payload.sources.length, mapFile).toBeGreaterThan(0);
      const sources = payload.sources.map((s) => resolve(dirname(mapFile), payload.sourceRoot ?? "", s));
      for (const source of sources) expect(existsSync(source), `${mapFile} -> ${source}`).toBe(true);
      if (!mapFile.endsWith(".js.map")) continue;
      // A generated function declaration's name maps back to the same name in the original TypeScript.
      const generated = readFileSync(mapFile.slice(0, -".map".length), "utf8").split("\n");
      const map = new SourceMap(payload);
      generated.forEach((line, lineNumber) => {
        const found = /^\s*(?:export\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/.exec(line);
        if (!found) return;
        const column = found.index + found[0].length - found[1]!.length;
        const entry = map.findEntry(lineNumber, column) as Partial<SourceMapEntry>;
        expect(entry.originalSource, `${mapFile}:${lineNumber + 1}`).toBeDefined();
        const original = readFileSync(resolveSource(mapFile, entry.originalSource!), "utf8").split("\n");
        const text = original[entry.originalLine!]!.slice(entry.originalColumn!);
        expect(text.startsWith(found[1]!), `${mapFile}:${lineNumber + 1} -> ${text}`).toBe(true);
        functionsMapped++;
      });
    }
    expect(functionsMapped).toBeGreaterThan(0);
  });

  it("declares only the dependencies its package may have", () => {
    const allowed = ALLOWED_DEPENDENCIES[name];
    const declared = [
      ...Object.keys(pkg.manifest.dependencies ?? {}),
      ...Object.entries(pkg.manifest.peerDependencies ?? {})
        .filter(([peer]) => pkg.manifest.peerDependenciesMeta?.[peer]?.optional !== true)
        .map(([peer]) => peer),
    ];
    if (allowed === undefined)
      return expect(name, "facade/cli: every dependency is allowed").toMatch(/sdk|cli/);
    const gap = REPORTED_DEPENDENCY_GAPS[name];
    if (gap)
      console.warn(
        `\n!!! runtime-proof: ${name} breaks its dependency promise (reported: ${gap.note}) !!!\n`,
      );
    expect(declared.filter((d) => !allowed.includes(d))).toEqual(gap?.declared ?? []);
  });

  it("installs from its tarball with plain npm outside the workspace, works alone, and brings only its declared tree", async () => {
    const usage = CONSUMER_USAGE[name];
    expect(
      usage,
      `runtime-proof has no consumer usage for ${name} yet (test/harness/consumers.ts)`,
    ).toBeDefined();
    const consumer = join(work, "consumers", pkg.dir);
    mkdirSync(consumer, { recursive: true });
    const tgz = (n: string) => `file:${tarballs.get(n)}`;
    // Workspace dependencies come from their own tarballs (they are not on the registry); every
    // third-party dependency comes from the default registry.
    const overrides = Object.fromEntries(
      [...tarballs.keys()].filter((n) => n !== name).map((n) => [n, tgz(n)] as const),
    );
    writeFileSync(
      join(consumer, "package.json"),
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        dependencies: { [name]: tgz(name) },
        overrides,
      }),
    );
    const env = plainNpmEnv(NPM_CACHE);
    await npmInstall({ cwd: consumer, what: `the ${pkg.dir} consumer`, env });

    // The installed tree is exactly the closure of declared (non-optional) dependencies.
    const lock = JSON.parse(readFileSync(join(consumer, "node_modules", ".package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const installed = new Set(
      Object.keys(lock.packages).map((key) =>
        key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length),
      ),
    );
    const closure = new Set<string>();
    const queue = [name];
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (closure.has(next)) continue;
      closure.add(next);
      const manifest = findInstalledManifest(consumer, next);
      queue.push(...requiredDependencies(manifest));
    }
    expect([...installed].sort()).toEqual([...closure].sort());
    expect([...installed].filter((n) => (FORBIDDEN_IN_TREE[name] ?? []).includes(n)).sort()).toEqual(
      REPORTED_DEPENDENCY_GAPS[name]?.inTree ?? [],
    );
    // The command embeds the simulator (its demo and `simulator` subcommand); nothing else may bring it.
    if (!/simulator|cli/.test(name)) expect(installed.has("@promo-review/simulator")).toBe(false);

    // It works, imported as ESM and required from CommonJS.
    writeFileSync(join(consumer, "use.mjs"), usage!);
    writeFileSync(
      join(consumer, "use.cjs"),
      `const m = require(${JSON.stringify(name)});\nif (typeof m.${CJS_EXPORT[name]} !== "function") throw new Error("require() lost ${CJS_EXPORT[name]}");\n`,
    );
    const runEnv = { ...env, PROOF_SIM: JSON.stringify(endpointsOf(sim)) };
    // Asynchronously: the simulator answering these scripts runs in this process.
    for (const file of ["use.mjs", "use.cjs"]) {
      const result = await runNode(file, consumer, runEnv);
      expect(result.code, `${file}:\n${result.output}`).toBe(0);
    }
  });
});

interface PublishedManifest {
  license?: string;
  repository?: unknown;
  homepage?: string;
  bugs?: { url?: string };
}

interface SourceMapEntry {
  originalSource: string;
  originalLine: number;
  originalColumn: number;
}

const unpacked = new Map<string, string>();
/** The package's tarball, extracted once (npm's `package/` folder). */
function unpack(name: string): string {
  const known = unpacked.get(name);
  if (known) return known;
  const into = join(work, "unpacked", name.replace("/", "+"));
  mkdirSync(into, { recursive: true });
  execFileSync("tar", ["-xzf", tarballs.get(name)!, "-C", into], { timeout: 60_000, killSignal: "SIGKILL" });
  unpacked.set(name, join(into, "package"));
  return join(into, "package");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `SourceMap` gives sources as file URLs or paths, depending on the Node version. */
function resolveSource(mapFile: string, source: string): string {
  return source.startsWith("file:") ? new URL(source).pathname : resolve(dirname(mapFile), source);
}

/** Runs `node file` without blocking this process's event loop; killed by its pid after 60 s. */
function runNode(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [file], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

function findInstalledManifest(consumer: string, name: string): Manifest {
  const file = join(consumer, "node_modules", name, "package.json");
  if (!existsSync(file)) throw new Error(`${name} is declared but not installed at the top of node_modules`);
  return JSON.parse(readFileSync(file, "utf8")) as Manifest;
}

function requiredDependencies(manifest: Manifest): string[] {
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
    (peer) => manifest.peerDependenciesMeta?.[peer]?.optional !== true,
  );
  return [...Object.keys(manifest.dependencies ?? {}), ...peers];
}
