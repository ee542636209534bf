/**
 * The `promo-review-simulator` command: starts the simulator, prints its URLs, keys and webhook
 * secret as JSON (so scripts can read them), and stops on SIGINT or SIGTERM.
 */
import { parseArgs } from "node:util";
import { type Simulator, startSimulator } from "./simulator.js";
import type { SimulatorOptions } from "./state.js";

const USAGE = `Usage: promo-review-simulator [options]
  --main-port <n>     main API port (default: ephemeral)
  --files-port <n>    file service port (default: ephemeral)
  --window-ms <n>     rate-limit window in ms (default 60000)
  --seed <n>          seed for generated data and faults
  --profile <n>       variant profile seed: another plausible reading of every
                      "not shown" point of the spec (default 0, the simulator's own)
  --webhook-url <url> webhook endpoint (repeatable)
  --help              show this help`;

/** Parses the command's arguments into simulator options; throws with a usage message when invalid. */
export function parseCliArgs(argv: string[]): SimulatorOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      "main-port": { type: "string" },
      "files-port": { type: "string" },
      "window-ms": { type: "string" },
      seed: { type: "string" },
      profile: { type: "string" },
      "webhook-url": { type: "string", multiple: true },
      help: { type: "boolean" },
    },
  });
  if (values.help) return "help";
  const integer = (name: string, value: string | undefined, max: number): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max)
      throw new Error(`--${name} must be an integer from 0 to ${max}\n${USAGE}`);
    return n;
  };
  const options: SimulatorOptions = {};
  const mainPort = integer("main-port", values["main-port"], 65535);
  const filesPort = integer("files-port", values["files-port"], 65535);
  const windowMs = integer("window-ms", values["window-ms"], 86_400_000);
  const seed = integer("seed", values.seed, 2 ** 32 - 1);
  if (mainPort !== undefined) options.mainPort = mainPort;
  if (filesPort !== undefined) options.filesPort = filesPort;
  if (windowMs !== undefined) options.rateLimitWindowMs = windowMs;
  const profile = integer("profile", values.profile, 2 ** 31 - 1);
  if (seed !== undefined) options.seed = seed;
  if (profile !== undefined) options.profile = profile;
  if (values["webhook-url"]) options.webhookUrls = values["webhook-url"];
  return options;
}

/** What the command needs from its process (injected so tests can drive it). */
export interface CliIo {
  write(text: string): void;
  onSignal(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
}

/** The JSON the command prints on start. */
export function startupInfo(simulator: Simulator): Record<string, unknown> {
  return {
    baseUrl: simulator.baseUrl,
    filesUrl: simulator.filesUrl,
    apiKey: simulator.apiKey,
    keys: simulator.keys,
    sessionToken: simulator.sessionToken,
    workspaceId: simulator.workspaceId,
    externalUserId: simulator.externalUserId,
    webhookSecret: simulator.webhookSecret,
    seed: simulator.seed,
    profile: simulator.profile,
    pid: process.pid,
  };
}

/**
 * Runs the command. Resolves with the running simulator and a promise that settles once a signal has
 * stopped it.
 */
export async function runCli(
  argv: string[],
  io: CliIo,
): Promise<{ simulator?: Simulator; stopped: Promise<void> }> {
  const options = parseCliArgs(argv);
  if (options === "help") {
    io.write(`${USAGE}\n`);
    return { stopped: Promise.resolve() };
  }
  const simulator = await startSimulator(options);
  io.write(`${JSON.stringify(startupInfo(simulator))}\n`);
  const stopped = new Promise<void>((resolve) => {
    const stop = () => void simulator.close().then(resolve);
    io.onSignal("SIGINT", stop);
    io.onSignal("SIGTERM", stop);
  });
  return { simulator, stopped };
}
