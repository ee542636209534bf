// The cost of the budget's OpenTelemetry, on the built package (`pnpm bench` builds first). Three
// budgets that differ only in their providers:
//  - none: no `tracerProvider` or `meterProvider` (what most users run): no span or metric code runs;
//  - sampled out + meter: the SDK's tracer with AlwaysOffSampler (what a production sampler does to
//    most spans) and a meter whose histogram takes a point per acquisition;
//  - recording: every span kept (SimpleSpanProcessor into an in-memory exporter) and the meter.
// Two figures each, median (min–max) of RUNS runs:
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
  InMemorySpanExporter,
  SimpleSpanProcessor,
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
    name: "recording (every span kept, in memory) + meter",
    providers: () => ({
      tracerProvider: new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
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

async function hotPath(setup) {
  const providers = setup.providers();
  const budget = budgetOf(providers, 1e9, 1000);
  const start = performance.now();
  for (let done = 0; done < N; done += IN_FLIGHT) {
    const batch = new Array(IN_FLIGHT);
    for (let i = 0; i < IN_FLIGHT; i++) batch[i] = budget.acquire(GET);
    await Promise.all(batch);
  }
  const rate = N / ((performance.now() - start) / 1000);
  budget.close();
  await shutdown(providers);
  return rate;
}

async function windowOpening(setup) {
  globalThis.gc?.();
  const providers = setup.providers();
  const budget = budgetOf(providers, WAITING, WINDOW_MS);
  // The first WAITING fill the window; the next WAITING wait for it to open, WINDOW_MS later.
  for (let i = 0; i < WAITING; i++) budget.acquire(GET);
  const opensAt = performance.now() + WINDOW_MS;
  let last = 0;
  const waiting = [];
  for (let i = 0; i < WAITING; i++) waiting.push(budget.acquire(GET).then(() => (last = performance.now())));
  await Promise.all(waiting);
  budget.close();
  await shutdown(providers);
  return WAITING / ((last - opensAt) / 1000);
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}
const fmt = (v) => (v >= 1e5 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`);
const triple = (s) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;

// Runs interleaved (one of each setup per round), so that a busy moment of the machine does not
// land on one setup only.
const hot = setups.map(() => []);
const opening = setups.map(() => []);
for (let run = 0; run < RUNS; run++) {
  for (const [i, setup] of setups.entries()) hot[i].push(await hotPath(setup));
  for (const [i, setup] of setups.entries()) opening[i].push(await windowOpening(setup));
}

const base = stats(hot[0]).median;
const lines = [
  "## @promo-review/rate-budget: the cost of tracing",
  "",
  `Node ${process.version}, ${RUNS} runs each (interleaved); median (min–max). Hot path: ${N} acquisitions, ${IN_FLIGHT} in`,
  `flight, limit not binding (one histogram point each, no span). Window opening: ${WAITING} requests that waited for a`,
  `full ${WINDOW_MS} ms window (each with its \`promo_review.budget.wait\` span and point), admissions per second once it opens.`,
  "",
  "| providers | hot path (acq/s) | vs none | window opening (adm/s) |",
  "| --- | --- | --- | --- |",
  ...setups.map((setup, i) => {
    const h = stats(hot[i]);
    return `| ${setup.name} | ${triple(h)} | ${i === 0 ? "—" : `${((h.median / base - 1) * 100).toFixed(0)}%`} | ${triple(stats(opening[i]))} |`;
  }),
  "",
];
const table = lines.join("\n");
console.log(table);
writeResult("rate-budget-tracing", table);
