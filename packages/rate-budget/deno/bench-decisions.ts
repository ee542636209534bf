// Decisions per second of the Deno KV budget store on a local KV file, in deno (bench/stores.mjs runs
// it on the built package): one key, a window that never binds, one decision in flight, then 16 (which
// race for the key: every conflict is read and decided again). Prints the rates and the refusals.
// deno run ... deno/bench-decisions.ts <kv file> <decisions>
import { denoKvBudgetStore } from "../dist/deno.js";

const [path, total] = Deno.args;
const kv = await Deno.openKv(path);
const store = denoKvBudgetStore(kv, { timeoutMs: 30_000, maxAttempts: 1000 });
const windows = [{ id: "shared", rule: "shared", limit: 1000, windowMs: 10 }];
let refused = 0;

async function rate(inFlight: number): Promise<number> {
  const n = Number(total);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < n) if (!(await store.take("bench", windows)).ok) refused++;
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

await rate(1);
refused = 0;
const sequential = await rate(1);
const concurrent = await rate(16);
kv.close();
console.log(JSON.stringify({ sequential, concurrent, refused }));
