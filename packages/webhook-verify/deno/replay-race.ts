// One of several deno processes racing on one KV file: claims every id of `ids` at once (each id by
// `racers` concurrent calls too) and prints the ids this process won, and any call that failed closed.
// deno run ... deno/replay-race.ts <kv file> <ids> <racers>
import { whileLocked } from "../../../testing/while-locked.ts";
import { denoKvReplayStore } from "../src/deno.ts";

const [path, count, racers] = Deno.args;
// The processes open the file at once: SQLite may say "database is locked" to the open itself.
const kv = await whileLocked(() => Deno.openKv(path));
// A generous deadline: several processes write to one SQLite file on a loaded two-core machine.
const store = denoKvReplayStore(kv, { timeoutMs: 20_000 });
const ids = Array.from({ length: Number(count) }, (_, i) => `msg_race_${i}`);
const won: string[] = [];
const failed: string[] = [];
await Promise.all(
  ids.flatMap((id) =>
    Array.from({ length: Number(racers) }, async () => {
      try {
        if (await store.claim(id, 60_000)) won.push(id);
      } catch (error) {
        failed.push(`${id}: ${(error as Error).message}`);
      }
    }),
  ),
);
kv.close();
console.log(JSON.stringify({ won, failed }));
