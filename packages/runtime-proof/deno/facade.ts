// One deno process of the whole-client proof (issue 32): `createClient({ store: denoKvStore(kv) })` on
// a KV file other deno processes share, doing one step of scenarios/client-steps.ts. Prints one JSON line.
// deno run ... deno/facade.ts <kv file> '<json input>'
import { denoKvStore } from "@promo-review/sdk/deno";
import { whileLocked } from "../../../testing/while-locked.ts";
import { type ClientStep, clientOn, clientStep } from "../scenarios/client-steps.ts";
import { runtimeFingerprint, type SimulatorEndpoints } from "../scenarios/types.ts";

const [path, json] = Deno.args;
const { sim, step } = JSON.parse(json!) as { sim: SimulatorEndpoints; step: ClientStep };
// Processes open the file one after another here, but SQLite may still say "database is locked".
const kv = await whileLocked(() => Deno.openKv(path));
const client = clientOn(
  sim,
  // A generous deadline: SQLite on a loaded two-core machine.
  denoKvStore(kv, { timeoutMs: 20_000 }),
);
let result: Record<string, unknown>;
try {
  result = { runtime: runtimeFingerprint(), ...(await clientStep(client, sim.baseUrl, step)) };
} finally {
  client.budget?.close();
  kv.close();
}
console.log(JSON.stringify(result));
