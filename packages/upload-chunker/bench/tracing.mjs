/**
 * `pnpm bench` (issue 26): what tracing costs an upload. The same file (bytes in memory, so no disk
 * in the figures) is uploaded over loopback in chunks, round after round, by three uploaders:
 *   none        no provider: no span or metric code runs (the default)
 *   sampled-out a tracer provider whose sampler drops every span (AlwaysOffSampler) and a meter
 *               provider: what production pays for the unsampled majority of its uploads
 *   recording   every span and event recorded in memory (SimpleSpanProcessor, InMemorySpanExporter)
 *               and the throughput histogram collected: the most tracing can cost
 * Two scenarios: a large upload (256 MiB in 8 MiB chunks, the figure a user reads) and many small
 * chunks (4 MiB in 64 KiB chunks, 15 rounds), where the per-chunk cost of tracing (an event, a CLIENT
 * span) is not lost among the bytes. The server is a minimal sink in a child process (it drains each
 * chunk and answers), so the benchmark's own process is the client alone and its CPU is the
 * uploader's. The modes run interleaved, once each per round; each ratio to `none` is taken within a
 * round, then its median.
 *
 * Environment: BENCH_TRACING_SIZE (bytes, default 256 MiB), BENCH_TRACING_CHUNK (bytes, default
 * 8 MiB), BENCH_TRACING_RUNS (rounds, default 9) for the large scenario; BENCH_SMOKE=1 (16 MiB in
 * 4 MiB chunks and 1 MiB in 64 KiB chunks, one round each, written to the smoke folder: see
 * scripts/bench-output.mjs).
 *
 * Run with `sink` as its argument, this file is the sink server (it prints its port).
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

if (process.argv[2] === "sink") {
  await sink();
} else {
  await bench();
}

/**
 * The file service at its simplest: initiation, chunk PUTs (drained, the offset answered) and a status
 * read that says `completed`. Nothing stored: the client is what is measured.
 */
async function sink() {
  const uploads = new Map();
  const json = (res, status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const id = /^\/v1\/uploads\/([0-9a-f-]{36})$/.exec(req.url ?? "")?.[1];
    if (req.method === "POST" && req.url === "/v1/uploads") {
      let text = "";
      req.setEncoding("utf8");
      req.on("data", (piece) => (text += piece));
      req.on("end", () => {
        const { fileSize } = JSON.parse(text);
        const uploadId = randomUUID();
        uploads.set(uploadId, { fileSize, received: 0 });
        const maxChunkSize = Number(process.argv[3]);
        json(res, 201, { uploadId, uploadUrl: `/v1/uploads/${uploadId}`, maxChunkSize });
      });
    } else if (req.method === "PUT" && id && uploads.has(id)) {
      const upload = uploads.get(id);
      const end = Number(/-(\d+)\//.exec(req.headers["content-range"] ?? "")?.[1]) + 1;
      req.on("data", () => {});
      req.on("end", () => {
        upload.received = end;
        // Still `uploading` after the last chunk, as a service processing the file says: the client
        // then polls once, and the status read says `completed`.
        json(res, 200, { uploadId: id, status: "uploading", receivedBytes: end });
        if (end === upload.fileSize) uploads.delete(id);
      });
    } else if (req.method === "GET" && id) {
      json(res, 200, { uploadId: id, status: "completed" });
    } else {
      json(res, 404, { error: { code: "NOT_FOUND", message: "no such route" } });
    }
  });
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
  process.on("disconnect", () => server.close(() => process.exit(0)));
}

async function bench() {
  const { sized, smoke, writeResult } = await import("../../../scripts/bench-output.mjs");
  const { createUploader } = await import("../dist/index.js");
  const { openTelemetry } = await import("@promo-review/opentelemetry");
  const { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
    "@opentelemetry/sdk-trace-base"
  );
  const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } =
    await import("@opentelemetry/sdk-metrics");

  const MiB = 1024 * 1024;
  const KiB = 1024;
  const SIZE = Number(process.env.BENCH_TRACING_SIZE ?? sized(256 * MiB, 16 * MiB));
  const CHUNK = Number(process.env.BENCH_TRACING_CHUNK ?? sized(8 * MiB, 4 * MiB));
  const RUNS = Number(process.env.BENCH_TRACING_RUNS ?? sized(9, 1));
  // The second scenario puts the per-chunk cost (an event, a CLIENT span) where it can be seen: many
  // small chunks, whose bytes cost little next to their requests.
  const scenarios = [
    { name: "large", size: SIZE, chunk: CHUNK, runs: RUNS },
    { name: "small chunks", size: sized(4 * MiB, MiB), chunk: 64 * KiB, runs: sized(15, 1) },
  ];
  const loadAtStart = loadavg()[0];

  // The sink's limit is the largest chunk; each scenario asks for its own with `chunkSize`.
  const largest = Math.max(...scenarios.map((s) => s.chunk));
  const child = fork(fileURLToPath(import.meta.url), ["sink", String(largest)], { stdio: "inherit" });
  const { port } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the sink exited with ${code}`)));
  });
  const filesUrl = `http://127.0.0.1:${port}`;

  const metricReader = () =>
    new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
  const exporter = new InMemorySpanExporter();
  const recordingReader = metricReader();
  const providers = {
    none: {},
    "sampled-out": {
      tracerProvider: new BasicTracerProvider({
        sampler: new AlwaysOffSampler(),
        spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
      }),
      meterProvider: new MeterProvider({ readers: [metricReader()] }),
    },
    recording: {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      meterProvider: new MeterProvider({ readers: [recordingReader] }),
    },
  };
  const modes = Object.keys(providers);
  const uploaders = Object.fromEntries(
    modes.map((mode) => [
      mode,
      createUploader({
        filesUrl,
        apiKey: "bench_key_0123456789",
        externalUserId: "bench",
        // The providers reach the uploader through the OpenTelemetry adapter, as a user passes them.
        ...(mode === "none" ? {} : { telemetry: openTelemetry(providers[mode]) }),
      }),
    ]),
  );

  const stats = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    return { median, min: sorted[0], max: sorted.at(-1) };
  };
  const fmt = ({ median, min, max }, digits = 0) =>
    `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;

  /** Runs one scenario's rounds; returns its table's rows and what the recording provider kept. */
  async function measure({ name, size, chunk, runs }) {
    // Random-looking bytes are not needed: nothing inspects them. One buffer for the scenario.
    const bytes = new Uint8Array(size).fill(7);
    const results = Object.fromEntries(modes.map((mode) => [mode, []]));
    const chunks = Math.ceil(size / chunk);
    /** One upload; its time (initiation to the completed poll) and the client's CPU over it. */
    async function run(mode) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await uploaders[mode].upload(bytes, {
        fileName: "bench.mp4",
        contentType: "video/mp4",
        chunkSize: chunk,
      });
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpu);
      return { ms, cpuSeconds: (used.user + used.system) / 1e6 };
    }
    for (const mode of modes) await run(mode); // warm-up (JIT, the first connection); not counted
    exporter.reset();
    for (let i = 0; i < runs; i++) {
      // The order rotates each round, so no mode always runs right after the same other one.
      for (const mode of [...modes.slice(i % modes.length), ...modes.slice(0, i % modes.length)]) {
        const r = await run(mode);
        results[mode].push(r);
        process.stderr.write(
          `tracing ${name} ${mode} run ${i + 1}: ${(size / MiB / (r.ms / 1000)).toFixed(0)} MiB/s, CPU ${r.cpuSeconds.toFixed(3)} s\n`,
        );
      }
    }
    // The recording provider really recorded: one span per upload with an event per chunk, and a
    // CLIENT span (the http package's) per request under it.
    const spans = exporter.getFinishedSpans().filter((s) => s.name === "uploads.upload");
    const chunkEvents = spans.reduce(
      (n, s) => n + s.events.filter((e) => e.name === "promo_review.upload.chunk").length,
      0,
    );
    const requests = exporter.getFinishedSpans().length - spans.length;
    if (spans.length !== runs || chunkEvents !== runs * chunks || requests < runs * (chunks + 2)) {
      throw new Error(
        `recording: expected ${runs} spans, ${runs * chunks} chunk events and ${runs * (chunks + 2)} CLIENT spans, got ${spans.length}, ${chunkEvents} and ${requests}`,
      );
    }
    const throughput = (r) => size / MiB / (r.ms / 1000);
    const cpuPerGiB = (r) => r.cpuSeconds / (size / (1024 * MiB));
    const perRound = (mode, measure) =>
      stats(results[mode].map((r, i) => measure(r) / measure(results.none[i])));
    // What tracing adds per chunk, in this scenario: the CPU over `none` (within a round) per chunk.
    const perChunk = (mode) =>
      stats(results[mode].map((r, i) => ((r.cpuSeconds - results.none[i].cpuSeconds) * 1e6) / chunks));
    return modes.map(
      (mode) =>
        `| ${name}: ${size / MiB} MiB in ${chunk >= MiB ? `${chunk / MiB} MiB` : `${chunk / KiB} KiB`} chunks, ${runs} rounds | ${mode} | ${fmt(stats(results[mode].map(throughput)))} | ${mode === "none" ? "1" : fmt(perRound(mode, throughput), 3)} | ${fmt(stats(results[mode].map(cpuPerGiB)), 2)} | ${mode === "none" ? "1" : fmt(perRound(mode, cpuPerGiB), 3)} | ${mode === "none" ? "–" : fmt(perChunk(mode))} |`,
    );
  }

  const rows = [];
  try {
    for (const scenario of scenarios) rows.push(...(await measure(scenario)));
  } finally {
    child.disconnect();
  }
  // The throughput histogram: one value per upload that completed with the recording provider.
  const uploads = scenarios.reduce((n, s) => n + s.runs + 1, 0); // each scenario's warm-up too
  const { resourceMetrics } = await recordingReader.collect();
  const recorded = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === "promo_review.upload.throughput")
    .flatMap((metric) => metric.dataPoints)
    .reduce((n, point) => n + point.value.count, 0);
  if (recorded !== uploads)
    throw new Error(`recording: ${recorded} throughput values for ${uploads} uploads`);

  const load = loadavg()[0];
  // Judged at the start only: by the end the load includes this benchmark's own processes (a client
  // and the simulator keep both cores busy).
  const busy = loadAtStart > cpus().length / 2;
  const table = [
    `# upload-chunker: the cost of tracing`,
    ``,
    `Uploads from memory over loopback to a minimal sink server in another process (an initiation, the chunk PUTs, one completion poll each). Each round runs every provider once (the order rotating); median (min–max) over the rounds. A ratio to \`none\` is taken within each round, then its median (min–max); so is the CPU added per chunk.`,
    smoke ? `**Smoke run** (BENCH_SMOKE=1): sizes too small for the figures to mean anything.` : ``,
    `Load average (1 min) ${loadAtStart.toFixed(1)} at the start, ${load.toFixed(1)} at the end (this benchmark's own processes included), on ${cpus().length} cores${busy ? ": **the machine was busy with other work**, so the figures are noisy (read the ratios within a round, and the small-chunk rows for the per-chunk cost)" : ""}.`,
    ``,
    `| scenario | provider | MiB/s | throughput to none | client CPU (s per GiB) | CPU to none | CPU added per chunk (µs) |`,
    `| --- | --- | --- | --- | --- | --- | --- |`,
    ...rows,
    ``,
    `- none: \`createUploader({ filesUrl, apiKey, externalUserId })\`, no provider: no span or metric code runs.`,
    `- sampled-out: \`tracerProvider\` a \`BasicTracerProvider\` with \`AlwaysOffSampler\`, and a \`meterProvider\` (the throughput histogram once per upload, \`http.client.request.duration\` per request): the spans are started and dropped by the sampler; no event is kept.`,
    `- recording: a \`BasicTracerProvider\` with a \`SimpleSpanProcessor\` into an \`InMemorySpanExporter\` and a \`MeterProvider\`: per upload one \`uploads.upload\` span with a \`promo_review.upload.chunk\` event per chunk and one \`promo_review.upload.poll\` event, and under it the http package's CLIENT span per request (chunks + 2) and its \`http.client.request.duration\` points; checked after each scenario.`,
    `- The client is this process (\`Uint8Array\` chunks sent through node:http); its CPU is \`process.cpuUsage()\` over each upload; the sink is a child process that drains each chunk and answers its offset.`,
    `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}.`,
    `- Command: \`pnpm --filter @promo-review/upload-chunker bench\` (runs upload-1gib.mjs, then this), or \`node packages/upload-chunker/bench/tracing.mjs\` after a build; \`BENCH_TRACING_RUNS=15\` for more rounds of the large scenario.`,
    ``,
  ].join("\n");
  process.stdout.write(`${table}\n`);
  writeResult("upload-chunker-tracing", table);
  await Promise.all(
    Object.values(providers).flatMap((p) => [p.tracerProvider?.shutdown(), p.meterProvider?.shutdown()]),
  );
}
