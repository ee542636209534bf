// One Vercel Edge runtime in its own Node process: `node edge-host.mjs <marker> <bundle.js> <input JSON>`.
// It evaluates the bundled scenario (a classic script that sets `globalThis.runScenario`) in a fresh
// `EdgeRuntime` from the `edge-runtime` package (the edge-light globals only: no `process`, no
// `require`, no Node built-ins), runs it with the input, and prints the marker and its outcome.
import { readFileSync } from "node:fs";
import { EdgeRuntime } from "edge-runtime";

const [marker, file, input] = process.argv.slice(2);
const runtime = new EdgeRuntime();
runtime.evaluate(readFileSync(file, "utf8"));
const outcome = await runtime.evaluate("runScenario")(JSON.parse(input));
// Idle keep-alive sockets of the runtime's fetch must not hold the process once the line is out.
process.stdout.write(`${marker}${JSON.stringify(outcome)}\n`, () => process.exit(0));
