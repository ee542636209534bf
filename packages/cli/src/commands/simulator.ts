/**
 * `promo-review simulator`: the simulator's own command (`runCli` from `@promo-review/simulator`),
 * served until stopped, with its URLs, keys and webhook secret printed for people or as JSON.
 */
import { runCli } from "@promo-review/simulator";
import type { Command } from "commander";
import { contextOf, example, integerIn } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";

interface SimulatorOptions {
  mainPort?: number;
  filesPort?: number;
  windowMs?: number;
  seed?: number;
  webhookUrl?: string[];
}

/** The simulator command's arguments for the options given here (it parses and checks them again). */
function simulatorArgv(options: SimulatorOptions): string[] {
  const argv: string[] = [];
  if (options.mainPort !== undefined) argv.push("--main-port", String(options.mainPort));
  if (options.filesPort !== undefined) argv.push("--files-port", String(options.filesPort));
  if (options.windowMs !== undefined) argv.push("--window-ms", String(options.windowMs));
  if (options.seed !== undefined) argv.push("--seed", String(options.seed));
  for (const url of options.webhookUrl ?? []) argv.push("--webhook-url", url);
  return argv;
}

/** Adds `simulator`. */
export function registerSimulator(program: Command, io: CliIo): void {
  program
    .command("simulator")
    .description(
      "Serve the local simulator of the service (main API and file service on 127.0.0.1) until stopped; prints its URLs, keys and webhook secret.",
    )
    // The connection settings, --json aside, are the client's: they do not apply to a server.
    .configureHelp({ showGlobalOptions: false })
    .addHelpText(
      "afterAll",
      "\nGlobal option that applies: --json (print the URLs, keys and secret as JSON).\n",
    )
    .option("--main-port <port>", "main API port (default: a free one)", integerIn(0, 65535))
    .option("--files-port <port>", "file service port (default: a free one)", integerIn(0, 65535))
    .option("--window-ms <ms>", "rate-limit window (default 60000)", integerIn(0, 86_400_000))
    .option("--seed <n>", "seed for generated ids, keys and faults", integerIn(0, 2 ** 32 - 1))
    .option(
      "--webhook-url <url>",
      "deliver webhooks here (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addHelpText(
      "after",
      example(
        "$ promo-review simulator --main-port 4010 --files-port 4011 --webhook-url http://127.0.0.1:8787/webhooks",
        "$ promo-review simulator --json > sim.json",
      ),
    )
    .action(async (options: SimulatorOptions, command: Command) => {
      const ctx = contextOf(command, io);
      let printed = "";
      const { stopped } = await runCli(simulatorArgv(options), {
        write: (text) => {
          printed += text;
        },
        onSignal: (_name, handler) => {
          if (io.signal?.aborted) handler();
          else io.signal?.addEventListener("abort", handler, { once: true });
        },
      });
      const info = JSON.parse(printed) as Record<string, string>;
      ctx.out.result(info, () => [
        "The simulator is running; stop it with Ctrl-C.",
        ...fields([
          ["main API", info["baseUrl"]],
          ["file service", info["filesUrl"]],
          ["webhook secret", info["webhookSecret"]],
          ["seed", info["seed"]],
        ]),
        "",
        "Point the command (or the SDK) at it:",
        `  export PROMO_REVIEW_BASE_URL=${info["baseUrl"]}`,
        `  export PROMO_REVIEW_FILES_URL=${info["filesUrl"]}`,
        `  export PROMO_REVIEW_API_KEY=${info["apiKey"]}`,
        `  export PROMO_REVIEW_USER_ID=${info["externalUserId"]}`,
        `  export PROMO_REVIEW_WEBHOOK_SECRET=${info["webhookSecret"]}`,
      ]);
      await stopped;
    });
}
