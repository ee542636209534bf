/**
 * Test support: an io for `run()` that captures stdout and stderr, with its own environment (so the
 * shell's PROMO_REVIEW_* never leaks into a test) and its own stop signal.
 */
import { type Simulator, startSimulator } from "@promo-review/simulator";
import type { CliIo } from "./io.js";

/** A captured run's io and what it printed. */
export interface CapturedIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
  /** Stops long-running commands, like Ctrl-C. */
  stop(): void;
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
      stderr: { write: (text: string) => (err += text), isTTY: options.tty ?? false, columns: 120 },
      env,
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
  const { run } = await import("./cli.js");
  const captured = captureIo(simulatorEnv(sim));
  const code = await run(
    ["create", ...requiredCreateFlags(sim), "--content", content, "--json"],
    captured.io,
  );
  if (code !== 0) throw new Error(`create failed (${code}): ${captured.stderr()}`);
  return JSON.parse(captured.stdout());
}
