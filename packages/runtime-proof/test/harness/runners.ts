/**
 * Runs a bundled scenario in a real runtime and returns its outcome. Every process started here is a
 * child of the test, killed by its pid when it overruns; every server listens on 127.0.0.1 and is
 * closed by whoever opened it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";
import { Miniflare } from "miniflare";
import type { BrowserContext } from "playwright-core";
import { runWithDeadline } from "../../../../testing/child-process.ts";
import type { ScenarioInput } from "../../scenarios/types.ts";
import { bundleScenario, PACKAGE_DIR, RESULT_MARKER, type Runtime } from "./bundle.ts";
import { type LaunchedChromium, launchChromium } from "./chromium.mjs";

export { CHROMIUM_PATH, type LaunchedChromium, launchChromium } from "./chromium.mjs";

/** What a scenario produced in a runtime: its JSON output, or a description of what it threw. */
export type Outcome =
  | { ok: true; output: Record<string, unknown> }
  | { ok: false; error: { name: string; message: string; [key: string]: unknown } };

const BIN = join(PACKAGE_DIR, "node_modules", ".bin");
/** The Node program that evaluates a bundle in a fresh `EdgeRuntime` (the Vercel Edge runtime). */
const EDGE_HOST = join(PACKAGE_DIR, "test", "harness", "edge-host.mjs");

/** Spawns `command`, waits for the result line, kills the process (by pid) after `timeoutMs`. */
export async function runProcess(command: string, args: string[], timeoutMs: number): Promise<Outcome> {
  const { stdout, stderr, code, signal, timedOut, spawnError } = await runWithDeadline(command, args, {
    cwd: PACKAGE_DIR,
    timeoutMs,
  });
  if (spawnError)
    return { ok: false, error: { name: "SpawnError", message: `${command}: ${spawnError.message}` } };
  const line = stdout.split("\n").find((l) => l.startsWith(RESULT_MARKER));
  if (line && !timedOut) return JSON.parse(line.slice(RESULT_MARKER.length)) as Outcome;
  const why = timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
  return {
    ok: false,
    error: {
      name: "ProcessFailed",
      message: `${basename(command)} ${why} without a result\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-4000)}`,
    },
  };
}

/** A browser and a page server kept for one test file (starting Chromium per scenario is slow). */
export interface ChromiumSession {
  context: BrowserContext;
  server: Server;
  origin: string;
  close(): Promise<void>;
}

/** Serves `.proof/` files and a blank page from 127.0.0.1, and starts headless Chromium with a fresh profile. */
export async function startChromium(): Promise<ChromiumSession> {
  const server = createServer((req, res) => {
    const name = basename(new URL(req.url ?? "/", "http://x").pathname);
    if (name === "" || name === "index.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>runtime proof</title>");
      return;
    }
    const file = join(PACKAGE_DIR, ".proof", name);
    if (!name.endsWith(".chromium.mjs") || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/javascript" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let browser: LaunchedChromium;
  try {
    browser = await launchChromium();
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    context: browser.context,
    server,
    origin,
    async close() {
      await browser.close();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

async function runInChromium(
  session: ChromiumSession,
  file: string,
  input: ScenarioInput,
  timeoutMs: number,
): Promise<Outcome> {
  const page = await session.context.newPage();
  const consoleLines: string[] = [];
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error.message}`));
  try {
    await page.goto(`${session.origin}/index.html`);
    await page.addScriptTag({ url: `${session.origin}/${basename(file)}`, type: "module" });
    await page.waitForFunction(
      () => typeof (globalThis as { runScenario?: unknown }).runScenario === "function",
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Outcome>((ok) => {
      timer = setTimeout(
        () =>
          ok({
            ok: false,
            error: { name: "Timeout", message: `page timed out; console: ${consoleLines.join("\n")}` },
          }),
        timeoutMs,
      );
    });
    const run = page.evaluate(
      (arg) => (globalThis as unknown as { runScenario(i: unknown): Promise<Outcome> }).runScenario(arg),
      input,
    );
    const outcome = await Promise.race([run, timeout]);
    clearTimeout(timer);
    if (!outcome.ok) outcome.error["console"] = consoleLines.join("\n");
    return outcome;
  } finally {
    await page.close();
  }
}

async function runInWorkerd(file: string, input: ScenarioInput): Promise<Outcome> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: file,
    compatibilityDate: "2025-09-01",
  });
  try {
    const response = await mf.dispatchFetch("http://proof.invalid/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    const text = await response.text();
    try {
      return JSON.parse(text) as Outcome;
    } catch {
      return {
        ok: false,
        error: { name: "WorkerFailed", message: `HTTP ${response.status}: ${text.slice(0, 4000)}` },
      };
    }
  } finally {
    await mf.dispose();
  }
}

/** Options of one run. */
export interface RunOptions {
  /** Needed for `chromium`. */
  chromium?: ChromiumSession;
  timeoutMs?: number;
}

/** Bundles `scenario` for `runtime` and runs it there with `input`. */
export async function runScenario(
  runtime: Runtime,
  scenario: string,
  input: ScenarioInput,
  options: RunOptions = {},
): Promise<Outcome> {
  return runBundle(runtime, await bundleScenario(scenario, runtime), input, options);
}

/**
 * Runs a scenario bundled already (`bundleScenario`) in `runtime` with `input`: what several processes
 * of one runtime share, so that they start from one bundle written once.
 */
export async function runBundle(
  runtime: Runtime,
  file: string,
  input: ScenarioInput,
  options: RunOptions = {},
): Promise<Outcome> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  const arg = JSON.stringify(input);
  switch (runtime) {
    case "node-esm":
    case "node-cjs":
      return runProcess(process.execPath, [file, arg], timeoutMs);
    case "deno":
      // Network to the loopback host only; no file, env or other permission, and never a prompt. The
      // tracing scenario alone may read the environment: the OpenTelemetry SDK the user's code builds
      // reads its `OTEL_*` settings (our packages read none).
      return runProcess(
        join(BIN, "deno"),
        [
          "run",
          "--no-prompt",
          "--no-lock",
          "--allow-net=127.0.0.1",
          ...(basename(file).startsWith("tracing.") ? ["--allow-env"] : []),
          file,
          arg,
        ],
        timeoutMs,
      );
    case "bun":
      return runProcess(join(BIN, "bun"), [file, arg], timeoutMs);
    case "workerd":
      return runInWorkerd(file, input);
    case "edge-runtime":
      // Each run is its own Node process with its own EdgeRuntime, as each edge function instance is.
      return runProcess(process.execPath, [EDGE_HOST, RESULT_MARKER, file, arg], timeoutMs);
    case "chromium": {
      if (!options.chromium) throw new Error("runScenario(chromium) needs a ChromiumSession");
      return runInChromium(options.chromium, file, input, timeoutMs);
    }
  }
}
