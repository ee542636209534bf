// The cost of how waiters wake, on the built package (or on another build: BUDGET_DIST=<dir>).
// Three figures, median of RUNS runs, printed as a markdown table; nothing asserted:
//  1. hot path: acquisitions per second with the limit not binding and nobody waiting;
//  2. beside a waiter: the same while one request waits for another budget, so every acquisition
//     goes through the queue (its own attempt and store call);
//  3. window opening: how fast WAITING waiters are admitted once their window frees (each wakes
//     by its own timer), as admissions per second from the moment the window opens.
import { pathToFileURL } from "node:url";

const dist = process.env.BUDGET_DIST ?? new URL("../dist/", import.meta.url).pathname;
const { createRateBudget } = await import(pathToFileURL(`${dist}/index.js`).href);

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BASE = "http://127.0.0.1:1";
const GET = { method: "GET", url: `${BASE}/v1/channels` };
const LINK = { method: "POST", url: `${BASE}/v1/links` };
const N = Number(process.env.BENCH_N ?? 50_000);
const IN_FLIGHT = 1000;
const WAITING = 2000;
const WINDOW_MS = 300;

const budgetOf = (limit, windowMs, linkLimit = 1e9) =>
  createRateBudget({
    baseUrl: BASE,
    safetyMarginMs: 0,
    maxQueue: Number.MAX_SAFE_INTEGER,
    budgets: [
      { name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } },
      { name: "links", limit: linkLimit, windowMs: 3_600_000, match: { method: "POST", path: "/v1/links" } },
    ],
  });

async function throughput(besideWaiter) {
  const budget = budgetOf(1e9, 1000, 1);
  if (besideWaiter) {
    await budget.acquire(LINK);
    budget.acquire(LINK).catch(() => {});
  }
  const start = performance.now();
  for (let done = 0; done < N; done += IN_FLIGHT) {
    const batch = new Array(IN_FLIGHT);
    for (let i = 0; i < IN_FLIGHT; i++) batch[i] = budget.acquire(GET);
    await Promise.all(batch);
  }
  const rate = N / ((performance.now() - start) / 1000);
  budget.close();
  return rate;
}

async function windowOpening() {
  globalThis.gc?.();
  const budget = budgetOf(WAITING, WINDOW_MS);
  // The window opens WINDOW_MS after the last admission of the first batch.
  for (let i = 0; i < WAITING; i++) budget.acquire(GET);
  const opensAt = performance.now() + WINDOW_MS;
  let last = 0;
  const waiting = [];
  for (let i = 0; i < WAITING; i++) waiting.push(budget.acquire(GET).then(() => (last = performance.now())));
  await Promise.all(waiting);
  budget.close();
  return WAITING / ((last - opensAt) / 1000);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (v) => (v >= 1e5 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`);
const measure = async (fn) => {
  const values = [];
  for (let run = 0; run < RUNS; run++) values.push(await fn());
  return fmt(median(values));
};

const hot = await measure(() => throughput(false));
const beside = await measure(() => throughput(true));
const opening = await measure(windowOpening);
console.log(
  `| build | hot path (acq/s) | beside a waiter (acq/s) | window opening, ${WAITING} waiters (adm/s) |`,
);
console.log("| --- | --- | --- | --- |");
console.log(`| ${process.env.BENCH_LABEL ?? dist} | ${hot} | ${beside} | ${opening} |`);
