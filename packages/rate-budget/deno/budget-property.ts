// The Deno KV budget property on real KV files, in one deno process (racing decisions included).
// deno run ... deno/budget-property.ts <folder for KV files> <fast-check runs> [seed]
import { checkBudgetProperty } from "../test/support/budget-property.ts";

const [dir, runs, seed] = Deno.args;
let files = 0;
await checkBudgetProperty({
  numRuns: Number(runs),
  seed: seed === undefined ? undefined : Number(seed),
  openKv: async () => {
    const kv = await Deno.openKv(`${dir}/property-${files++}.sqlite`);
    return { kv, close: () => kv.close() };
  },
});
console.log(JSON.stringify({ propertyRuns: Number(runs) }));
