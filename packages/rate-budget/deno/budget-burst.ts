// One of several deno processes sharing one budget key on one KV file: sends `requests` GETs at once
// through budgetedFetch and prints the statuses it got.
// deno run ... deno/budget-burst.ts <kv file> <JSON: { baseUrl, apiKey, userId, limit, windowMs, requests }>
import { whileLocked } from "../../../testing/while-locked.ts";
import { createRateBudget } from "../src/budget.ts";
import { denoKvBudgetStore } from "../src/deno.ts";
import { budgetedFetch } from "../src/fetch.ts";

const [path, json] = Deno.args;
const { baseUrl, apiKey, userId, limit, windowMs, requests } = JSON.parse(json!);
// The processes open the file at once: SQLite may say "database is locked" to the open itself.
const kv = await whileLocked(() => Deno.openKv(path));
const errors: string[] = [];
const budget = createRateBudget({
  baseUrl,
  keyId: "shared-key",
  // A generous deadline, and attempts bounded by it rather than by their count: 18 decisions race on
  // one SQLite file, which also answers "database is locked" on a loaded two-core machine, and each
  // lost race or lock is one attempt (the default 32 ran out under load).
  store: denoKvBudgetStore(kv, {
    timeoutMs: 20_000,
    maxAttempts: 10_000,
    onError: (e) => errors.push(String(e)),
  }),
  budgets: [{ name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } }],
  safetyMarginMs: 20,
});
const send = budgetedFetch(budget);
const headers = { Authorization: `Bearer ${apiKey}`, "X-External-User-ID": userId };
const statuses = await Promise.all(
  Array.from({ length: requests }, async () => {
    const response = await send(`${baseUrl}/v1/channels`, { headers });
    await response.body?.cancel();
    return response.status;
  }),
);
budget.close();
kv.close();
console.log(JSON.stringify({ statuses, errors }));
