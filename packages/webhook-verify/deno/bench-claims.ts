// Claims per second of the Deno KV replay store on a local KV file, in deno (bench/stores.mjs runs it
// on the built package): fresh ids, one claim in flight, then 16.
// deno run ... deno/bench-claims.ts <kv file> <claims>
import { denoKvReplayStore } from "../dist/deno.js";

const [path, total] = Deno.args;
const kv = await Deno.openKv(path);
const store = denoKvReplayStore(kv);

async function rate(prefix: string, inFlight: number): Promise<number> {
  const n = Number(total);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await store.claim(`${prefix}${next++}`, 600_000);
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

await rate("warm-", 1);
const sequential = await rate("seq-", 1);
const concurrent = await rate("conc-", 16);
kv.close();
console.log(JSON.stringify({ sequential, concurrent }));
