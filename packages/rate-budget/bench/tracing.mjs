// The cost of the budget's OpenTelemetry, on the built package (`pnpm bench` builds first). Three
// budgets that differ only in their providers:
//  - none: no `tracerProvider` or `meterProvider` (what most users run): no span or metric code runs;
//  - sampled out + meter: the SDK's tracer with AlwaysOffSampler (what a production sampler does to
//    most spans) and a meter whose histogram takes a point per acquisition;
//  - recording: every span kept (a BatchSpanProcessor, as in production, into an in-memory exporter)
//    and the meter.
// Two scenarios, median (min–max) of RUNS runs, wall-clock rates and CPU time per acquisition:
//  1. hot path: acquisitions per second with the limit not binding, 1000 in flight (one histogram
//     point each, no span: an acquisition that does not wait records none);
//  2. window opening: admissions per second of WAITING requests that all waited for a full window
//     (each with its wait span and histogram point), from the moment the window opens.
// Written to bench/results/rate-budget-tracing.md (the smoke folder in a smoke run). Nothing asserted.
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { sized, writeResult } from "../../../scripts/bench-output.mjs";
import { createRateBudget } from "../dist/index.js";

const RUNS = Number(process.env.BENCH_RUNS ?? sized(5, 1));
const N = sized(200_000, 5_000);
const IN_FLIGHT = 1000;
const WAITING = sized(2000, 200);
const WINDOW_MS = sized(300, 50);
const BASE = "http://127.0.0.1:1";
const GET = { method: "GET", url: `${BASE}/v1/channels` };

/** A meter provider that keeps its points until collected (never, here: the cost is in recording). */
function meter() {
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  return new MeterProvider({ readers: [reader] });
}

const setups = [
  { name: "no provider", providers: () => ({}) },
  {
    name: "spans sampled out (AlwaysOffSampler) + meter",
    providers: () => ({
      tracerProvider: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }),
      meterProvider: meter(),
    }),
  },
  {
    name: "recording (every span kept, batched, in memory) + meter",
    providers: () => ({
      tracerProvider: new BasicTracerProvider({
        spanProcessors: [new BatchSpanProcessor(new InMemorySpanExporter())],
      }),
      meterProvider: meter(),
    }),
  },
];

const budgetOf = (providers, limit, windowMs) =>
  createRateBudget({
    baseUrl: BASE,
    safetyMarginMs: 0,
    maxQueue: Number.MAX_SAFE_INTEGER,
    budgets: [{ name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } }],
    ...providers,
  });

async function shutdown(providers) {
  await providers.tracerProvider?.shutdown();
  await providers.meterProvider?.shutdown();
}

/** CPU time of this process (user + system), in µs: unlike wall time, barely moved by other processes. */
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function hotPath(setup) {
  const providers = setup.providers();
  const budget = budgetOf(providers, 1e9, 1000);
  const start = performance.now();
  const cpuStart = cpu();
  for (let done = 0; done < N; done += IN_FLIGHT) {
    const batch = new Array(IN_FLIGHT);
    for (let i = 0; i < IN_FLIGHT; i++) batch[i] = budget.acquire(GET);
    await Promise.all(batch);
  }
  const result = { rate: N / ((performance.now() - start) / 1000), cpuUs: (cpu() - cpuStart) / N };
  budget.close();
  await shutdown(providers);
  return result;
}

async function windowOpening(setup) {
  globalThis.gc?.();
  const providers = setup.providers();
  const budget = budgetOf(providers, WAITING, WINDOW_MS);
  // The first WAITING fill the window; the next WAITING wait for it to open, WINDOW_MS later.
  for (let i = 0; i < WAITING; i++) budget.acquire(GET);
  const opensAt = performance.now() + WINDOW_MS;
  const cpuStart = cpu();
  let last = 0;
  const waiting = [];
  for (let i = 0; i < WAITING; i++) waiting.push(budget.acquire(GET).then(() => (last = performance.now())));
  await Promise.all(waiting);
  // Every waiter's CPU, from its queueing to its admission (the window's idle wait costs none).
  const result = { rate: WAITING / ((last - opensAt) / 1000), cpuUs: (cpu() - cpuStart) / WAITING };
  budget.close();
  await shutdown(providers);
  return result;
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}
const fmt = (v) => (v >= 1e5 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`);
const us = (v) => `${v.toFixed(2)} µs`;
const triple = (s, f = fmt) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;

// Runs interleaved (one of each setup per round), so that a busy moment of the machine does not
// land on one setup only.
const hot = setups.map(() => []);
const opening = setups.map(() => []);
for (let run = 0; run < RUNS; run++) {
  for (const [i, setup] of setups.entries()) hot[i].push(await hotPath(setup));
  for (const [i, setup] of setups.entries()) opening[i].push(await windowOpening(setup));
}

const of = (runs, key) => stats(runs.map((r) => r[key]));
const lines = [
  "## @promo-review/rate-budget: the cost of tracing",
  "",
  `Node ${process.version}, ${RUNS} runs each (interleaved); median (min–max). Hot path: ${N} acquisitions, ${IN_FLIGHT} in`,
  `flight, limit not binding (one histogram point each, no span): acquisitions per second, and the process's CPU time per`,
  `acquisition (less sensitive than wall time to a busy machine). Waited: ${WAITING} requests that waited for a full ${WINDOW_MS} ms`,
  "window (each with its `promo_review.budget.wait` span and point): admissions per second once it opens, and CPU per",
  "waited acquisition from its queueing to its admission. The added cost of tracing is the difference to the first row.",
  "",
  "| providers | hot path (acq/s) | hot path CPU per acquisition | waited (adm/s) | waited CPU per acquisition |",
  "| --- | --- | --- | --- | --- |",
  ...setups.map(
    (setup, i) =>
      `| ${setup.name} | ${triple(of(hot[i], "rate"))} | ${triple(of(hot[i], "cpuUs"), us)} | ${triple(of(opening[i], "rate"))} | ${triple(of(opening[i], "cpuUs"), us)} |`,
  ),
  "",
];
const table = lines.join("\n");
console.log(table);
writeResult("rate-budget-tracing", table);
