/**
 * Builds one scenario for one runtime with esbuild. Node, Deno and Bun get the scenario with every
 * package left external, so each runtime resolves the real workspace packages itself (Node through
 * `import` or `require()`, Deno through node_modules, Bun with its own conditions). workerd and
 * Chromium get a single self-contained bundle, as a Worker or a web page would be built, with the
 * conditions their tool chains use; a Node built-in anywhere in it fails the build. The Vercel Edge
 * runtime (`edge-runtime` from npm) gets one too, as a classic script with the `edge-light`
 * condition first (what Vercel's build resolves for an edge function), evaluated in an `EdgeRuntime`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

export type Runtime = "node-esm" | "node-cjs" | "deno" | "bun" | "workerd" | "chromium" | "edge-runtime";

/** This package's folder, found upward from this module (which also runs compiled into `.proof/`). */
export const PACKAGE_DIR = findPackageDir(import.meta.dirname);

function findPackageDir(start: string): string {
  for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (
      existsSync(manifest) &&
      JSON.parse(readFileSync(manifest, "utf8")).name === "@promo-review/runtime-proof"
    ) {
      return dir;
    }
  }
  throw new Error(`no @promo-review/runtime-proof package above ${start}`);
}
export const SCENARIO_DIR = join(PACKAGE_DIR, "scenarios");
export const OUT_DIR = join(PACKAGE_DIR, ".proof");

/** The line a process runner prints before its JSON outcome. */
export const RESULT_MARKER = "@@proof-result@@";

// An outcome is { ok: true, output } or { ok: false, error }; never a thrown value across the boundary.
const DESCRIBE = `
function describeFailure(error) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  return { name: error.name, message: error.message, code: error.code, stack: error.stack,
    cause: error.cause instanceof Error ? { name: error.cause.name, message: error.cause.message } : undefined };
}`;

function entrySource(scenario: string, runtime: Runtime): string {
  const importLine = `import { run } from "./${scenario}.ts";\n${DESCRIBE}\n`;
  switch (runtime) {
    case "node-esm":
    case "deno":
    case "bun":
      return `${importLine}
const arg = typeof Deno !== "undefined" ? Deno.args[0] : process.argv[2];
let outcome;
try { outcome = { ok: true, output: await run(JSON.parse(arg)) }; }
catch (error) { outcome = { ok: false, error: describeFailure(error) }; }
console.log(${JSON.stringify(RESULT_MARKER)} + JSON.stringify(outcome));
`;
    case "node-cjs":
      // No top-level await in CommonJS: the scenario runs in an async function.
      return `${importLine}
if (!process.features.require_module) throw new Error("this Node cannot require() ES modules: " + process.version);
(async () => {
  let outcome;
  try { outcome = { ok: true, output: await run(JSON.parse(process.argv[2])) }; }
  catch (error) { outcome = { ok: false, error: describeFailure(error) }; }
  console.log(${JSON.stringify(RESULT_MARKER)} + JSON.stringify(outcome));
})();
`;
    case "workerd":
      return `${importLine}
export default {
  async fetch(request) {
    try { return Response.json({ ok: true, output: await run(await request.json()) }); }
    catch (error) { return Response.json({ ok: false, error: describeFailure(error) }); }
  },
};
`;
    case "chromium":
    case "edge-runtime":
      return `${importLine}
globalThis.runScenario = async (input) => {
  try { return { ok: true, output: await run(input) }; }
  catch (error) { return { ok: false, error: describeFailure(error) }; }
};
`;
  }
}

/** Bundles `scenarios/<scenario>.ts` for `runtime`; returns the path of the written file. */
export async function bundleScenario(scenario: string, runtime: Runtime): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const isNode = runtime === "node-esm" || runtime === "node-cjs" || runtime === "deno" || runtime === "bun";
  const extension = runtime === "node-cjs" ? "cjs" : runtime === "edge-runtime" ? "js" : "mjs";
  const outfile = join(OUT_DIR, `${scenario}.${runtime}.${extension}`);
  await build({
    stdin: { contents: entrySource(scenario, runtime), resolveDir: SCENARIO_DIR, loader: "ts" },
    bundle: true,
    outfile,
    // An EdgeRuntime evaluates a script, not a module.
    format: runtime === "node-cjs" ? "cjs" : runtime === "edge-runtime" ? "iife" : "esm",
    platform: isNode ? "node" : "browser",
    target: "es2022",
    // Node, Deno and Bun resolve the packages themselves; the web targets get everything inlined.
    ...(isNode ? { packages: "external" as const } : {}),
    ...(runtime === "workerd" ? { conditions: ["workerd", "worker", "browser"] } : {}),
    ...(runtime === "edge-runtime" ? { conditions: ["edge-light", "worker", "browser"] } : {}),
    logLevel: "silent",
  });
  return outfile;
}

/** Bundles a Worker module (`workers/<name>.ts`, or any file) for workerd; returns the written file. */
export async function bundleWorker(entry: string, name: string): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const outfile = join(OUT_DIR, `${name}.worker.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    outfile,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
  });
  return outfile;
}
