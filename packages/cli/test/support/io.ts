/**
 * Test support: an io for `run()` that captures stdout and stderr, with its own environment (so the
 * shell's PROMO_REVIEW_* never leaks into a test) and its own stop signal.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import type { CliIo } from "../../src/io.js";

/** A captured run's io and what it printed. */
export interface CapturedIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
  /** Stops long-running commands, like Ctrl-C. */
  stop(): void;
}

let cacheDirectory: string | undefined;

/** A cache directory for this test process (removed when it exits). */
export function testCacheDirectory(): string {
  if (!cacheDirectory) {
    const dir = mkdtempSync(join(tmpdir(), "promo-review-cli-cache-"));
    cacheDirectory = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return cacheDirectory;
}

/** Makes an io; `tty` pretends stderr is a terminal (for the progress bar). */
export function captureIo(
  env: Record<string, string | undefined> = {},
  options: { tty?: boolean } = {},
): CapturedIo {
  let out = "";
  let err = "";
  const controller = new AbortController();
  return {
    io: {
      stdout: { write: (text: string) => (out += text) },
      stderr: {
        write: (text: string) => (err += text),
        isTTY: options.tty ?? false,
        columns: 120,
        // A terminal's cursor control, as the escape codes tty.WriteStream writes for it.
        ...(options.tty
          ? {
              cursorTo: (x: number) => (err += `\x1b[${x + 1}G`),
              moveCursor: (dx: number, dy: number) =>
                (err += `${dx ? `\x1b[${Math.abs(dx)}${dx > 0 ? "C" : "D"}` : ""}${dy ? `\x1b[${Math.abs(dy)}${dy > 0 ? "B" : "A"}` : ""}`),
              clearLine: () => (err += "\x1b[2K"),
            }
          : {}),
      },
      // Upload state goes to a directory of this test run, never the user's cache.
      env: { PROMO_REVIEW_CACHE_DIR: testCacheDirectory(), ...env },
      signal: controller.signal,
    },
    stdout: () => out,
    stderr: () => err,
    stop: () => controller.abort(),
  };
}

/** The PROMO_REVIEW_* environment that points at a simulator. */
export function simulatorEnv(sim: Simulator): Record<string, string> {
  return {
    PROMO_REVIEW_API_KEY: sim.apiKey,
    PROMO_REVIEW_BASE_URL: sim.baseUrl,
    PROMO_REVIEW_FILES_URL: sim.filesUrl,
    PROMO_REVIEW_USER_ID: sim.externalUserId,
    PROMO_REVIEW_WEBHOOK_SECRET: sim.webhookSecret,
  };
}

/** A simulator with short delays, for the subcommand tests. */
export function testSimulator(): Promise<Simulator> {
  return startSimulator({
    uploadProcessingDelayMs: 20,
    linkImportDelayMs: 20,
    evaluationDelayMs: 20,
    maxChunkSize: 64 * 1024,
  });
}

/** A port that was free a moment ago (for listeners the simulator must know before they start). */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The flags `create` needs, with the simulator's first product, channel and jurisdiction. */
export function requiredCreateFlags(sim: Simulator, name = "Test promotion"): string[] {
  return [
    "--name",
    name,
    "--product",
    sim.reference.products[0]!.id,
    "--channel",
    sim.reference.channels[0]!.id,
    "--jurisdiction",
    sim.reference.jurisdictions[0]!.id,
  ];
}

/** Creates a text promotion through the command and returns its JSON answer. */
export async function createTextPromotion(
  sim: Simulator,
  content: string,
): Promise<{ promotionId: string; versionId: string }> {
  const { run } = await import("../../src/cli.js");
  const captured = captureIo(simulatorEnv(sim));
  const code = await run(
    ["create", ...requiredCreateFlags(sim), "--content", content, "--json"],
    captured.io,
  );
  if (code !== 0) throw new Error(`create failed (${code}): ${captured.stderr()}`);
  return JSON.parse(captured.stdout());
}
