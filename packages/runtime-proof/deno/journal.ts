// One deno process on a batch journal kept in Deno KV (`storeJournal` over `denoKvStore`), on a KV
// file shared with other processes. Prints one JSON line.
// deno run ... deno/journal.ts <kv file> <journal name> append <writer> <n>   appends n intents <writer>-<i>
// deno run ... deno/journal.ts <kv file> <journal name> read                   the records, in order
// deno run ... deno/journal.ts <kv file> <journal name> lease <owner>          takes the lease, keeps it
import { storeJournal } from "@promo-review/sdk/deno";
import { denoKvStore } from "@promo-review/store/deno";
import { whileLocked } from "../../../testing/while-locked.ts";

const [path, name, command, who, count] = Deno.args;
// The processes open the file at once: SQLite may say "database is locked" to the open itself.
const kv = await whileLocked(() => Deno.openKv(path));
// A generous deadline: several processes write to one SQLite file on a loaded two-core machine.
const journal = storeJournal(denoKvStore(kv, { timeoutMs: 20_000 }), {
  name,
  chunkBytes: 400,
  leaseTtlMs: 60_000,
});
let result: unknown;
try {
  if (command === "append") {
    for (let i = 0; i < Number(count); i++) {
      await journal.append({ type: "intent", key: `${who}-${i}`, step: "create", at: i });
    }
    result = { appended: Number(count) };
  } else if (command === "read") {
    const records = [];
    for await (const record of journal.read()) records.push(record);
    result = { records };
  } else {
    // Kept: the process ends without releasing it, as a killed runner does.
    result = { owner: (await journal.lease({ owner: who! })).owner };
  }
} catch (error) {
  const e = error as { code?: string; message?: string };
  result = { error: { code: e.code, message: e.message } };
}
await journal.close();
kv.close();
console.log(JSON.stringify(result));
