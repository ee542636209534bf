/**
 * `pnpm bench`: uploads 1 GiB over loopback to the simulator in 50 MiB chunks with the uploader (a web
 * stream and a plain Blob, each also through Node's fetch, an async iterable and a File from fileSource) and, in the same run, the same
 * bytes as one plain node:http PUT (the ceiling of this machine) and as bare fetch chunk PUTs of the
 * same web stream (the floor that fetch and that stream set for any uploader). Each client runs in its own process
 * (bench/client.mjs) so its peak RSS is its own. The servers are two simulators in this process, both
 * from @promo-review/simulator: one with maxChunkSize 50 MiB for the uploader, one with maxChunkSize 1
 * GiB so the ceiling's single PUT is accepted; both handle a chunk the same way (stream it to a
 * temporary file, hash it). Every upload's server-side SHA-256 is checked against the file's. Prints a
 * markdown table (median, min, max of RUNS runs, interleaved) and writes it to
 * bench/results/upload-chunker.md at the repo root.
 *
 * Environment: BENCH_SIZE (bytes, default 1 GiB), BENCH_RUNS (rounds, default 5), BENCH_MODES (a
 * comma-separated subset of the modes), BENCH_CPU_PROF=<dir> (every client writes a V8 CPU profile
 * there), BENCH_SMOKE=1 (16 MiB in 4 MiB chunks, one round, written to the smoke folder: see
 * scripts/bench-output.mjs), BENCH_BASE=<a checkout's root, built> (a mode named `<mode>@base` runs
 * that checkout's client and uploader in the same rounds: an A/B of two versions on the same
 * machine, minutes apart at most, e.g. `BENCH_MODES=ceiling,blob-api,blob-api@base`; any label
 * works the same way: `<mode>@x` runs the checkout at BENCH_X). `<mode>@views` with BENCH_VIEWS=<a
 * checkout with bench/experiments/keep-views.patch applied, built> measures keeping a stream's own
 * buffers instead of copying them (see the notes).
 */
import { spawn } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startSimulator } from "@promo-review/simulator";
import { sized, smoke, writeResult } from "../../../scripts/bench-output.mjs";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const SIZE = Number(process.env.BENCH_SIZE ?? sized(1024 * MiB, 16 * MiB));
const CHUNK = sized(50, 4) * MiB;
const RUNS = Number(process.env.BENCH_RUNS ?? sized(5, 1));
const here = dirname(fileURLToPath(import.meta.url));
const RSS_BAR = 2 * CHUNK + 100 * MiB;
const loadAtStart = loadavg()[0];

/** The method, under the table. */
const NOTES = [
  `- ceiling: one plain \`node:http\` PUT of the whole file (\`fs.createReadStream\` piped into the request, Content-Length set) to \`PUT /v1/uploads/{id}\` of a simulator started with \`maxChunkSize\` = the file size.`,
  `- floor: not the uploader. The same web stream as \`stream\`, sent in the same ${CHUNK / MiB} MiB chunk PUTs by a bare \`fetch\` that passes each piece straight through and keeps nothing (so it could not retry a chunk): what \`fetch\` and this stream cost here before any uploader work. An uploader must keep a chunk's bytes until the chunk is acknowledged, to send it again after a failure.`,
  `- ceiling-memory, iterable-memory: not sources a user has, so no bar. The ceiling's plain \`node:http\` PUT (the \`whole\` simulator) and the uploader with an AsyncIterable, both sending the file's first MiB (read before the clock starts) again and again, a view of the same buffer each time: what sending costs each of them when reading costs nothing, so that their difference is the uploader's own work on a stream (a request per ${CHUNK / MiB} MiB chunk, and keeping each chunk for a retry: the copy into reused slabs, then sending from slabs that left the cache while the chunk was read ahead). Their stored SHA-256 is checked against that repeated MiB's.`,
  `- stream: \`uploader.upload(fromStream(Readable.toWeb(fs.createReadStream(path, { highWaterMark: 1 MiB }))), { size })\` (a web ReadableStream; toWeb copies every piece); every uploader row sends chunk bodies as Node's default does, through node:http (\`nodeStreamFetch\`), and a \`-fetch\` row is the same source with \`fetch: globalThis.fetch\` (Node's fetch, as every other runtime sends); iterable: the \`fs.createReadStream\` itself as an AsyncIterable, \`fromStream(readStream)\` (no toWeb); blob: \`uploader.upload(await fileSource(path))\` (a File backed by the file, its streamed chunks read with \`fs\`); blob-api: \`uploader.upload(await fs.openAsBlob(path))\`, a plain Blob read through Node's Blob API. All against a simulator with \`maxChunkSize\` ${CHUNK / MiB} MiB, default \`readAheadBytes\` (8 MiB).`,
  `- Which copy each row that misses a bar pays, and why it stays. **blob-api, blob-api-fetch** (a plain Blob): the only way to a plain Blob's bytes is the Blob API, and Node ${process.version} reads a file-backed Blob 64 KiB at a time, each piece a fresh ArrayBuffer handed through a callback, then (\`arrayBuffer()\`) copied together into one more fresh buffer. The rows \`read-fs\` and \`read-blob-api\` measure the reading alone in this run (the same bytes with \`fs\`, as \`fileSource\` reads, and as the uploader reads a plain Blob): the difference is more than the bar's whole 0.2 x ceiling margin before a byte is sent, and on 2 shared cores it is throughput too. A File from \`fileSource\` (row \`blob\`) is the way around it on Node. **stream, stream-fetch**: \`Readable.toWeb\` copies every piece (Node's adapter wraps each Buffer in a new Uint8Array by copying it; rows \`read-node-stream\` and \`read-web-stream\`), and the uploader copies each piece once into reused 1 MiB slabs (\`copyInto\` in stream-source.ts). **iterable**: that one uploader copy, and what keeping a chunk for a retry costs besides. A \`perf record\` of a 1 GiB \`iterable\` client (1000 samples per second, every thread, kernel included) put 0.19 s of CPU per GiB in the copy (\`memmove\` under \`copyInto\`); file reads and socket writes cost what the ceiling's do. The client also runs more full GCs (column "full GCs per GiB": a stream's fresh 1 MiB Buffers, one per read, drive V8's collections), but they are not most of the rest: \`node --initial-heap-size=64\` cut them from 6 to 2–4 per GiB with no CPU change outside the noise (512 MiB, 3 interleaved rounds, 1.94–2.09 against 1.95–2.05 s per GiB). The ceiling keeps nothing and pays none of it.`,
  `- Why the uploader's one copy of a stream stays: an uploader must keep a chunk's bytes until the chunk is acknowledged, to send them again after a failure (the \`floor\` and the ceiling keep nothing), and on Node copying them into reused slabs is the cheaper way to keep them. Measured with the copy taken out (bench/experiments/keep-views.patch keeps every whole 1 MiB piece of the stream as it is, a view of the stream's own buffer, and never reuses it; run as \`iterable@views\` with \`BENCH_VIEWS\` set to a built checkout with the patch applied): V8 frees a buffer that outlives two scavenges only in a full mark-compact, and a kept chunk is 50 MiB of such buffers, so the views cost more full GCs per GiB than the copy saves (see the \`@views\` rows and the sentence under the read table when they are in a run). Views would also break the README's promise that a stream may reuse a buffer it yielded once the next piece is asked for (one 1 MiB buffer filled again and again is the natural way to read a file into a stream): the patch fails that test in sources.test.ts.`,
  `- Tried for a plain Blob and measured (Node v20.20.2, 2 shared cores): reading alone (256 MiB in one process, 5 interleaved rounds, medians, load about 2) costs 0.16 s of CPU per GiB with \`fs\` into one buffer, 1.29 with 1 MiB \`slice().arrayBuffer()\` (the uploader's way), 1.35 with 8 MiB slices, 2.15 with one \`arrayBuffer()\` per 50 MiB chunk (one large fresh buffer a chunk: rejected), 1.10 with \`slice().stream()\` and 1.02 with its 64 KiB pieces copied into one reused 1 MiB buffer. That last way, cheaper read alone there, is not in a fresh process (rows \`read-blob-stream\` and \`read-blob-api\` of this run) and cost more in the upload: an A/B in the same rounds (\`blob-api\` reading \`Blob.stream()\` into reused 1 MiB buffers lent to each request, against the 1 MiB \`arrayBuffer()\` reads) gave 3.05 against 2.34 s of upload CPU per GiB (512 MiB x 5 rounds, per-round ratio 1.26, 1.02–1.49, load 7.7–13) and 3.60 against 2.74 (256 MiB x 5), so the uploader keeps \`arrayBuffer()\`. Earlier sessions found the uploader's own code (upload-chunker and http) 2–3% of the client's busy main-thread time in \`blob-api\` and \`blob-api-fetch\`, and that sending the chunk as the Blob slice itself (\`streamRequestBodies: false\`), zero-copy in browsers, costs more on Node: undici streams a Blob body through \`blob.stream()\`'s 64 KiB pieces (5.6–6.1 s of CPU per GiB against 3.5–3.7 streamed). Browsers take that path: there a Blob source's chunk goes as \`blob.slice(start, end)\`, never read into script memory. Not tried: reading a plain Blob in a worker thread, which could take the Blob reader off the main thread (throughput) but not lower the CPU.`,
  `- Chunk PUTs declare their \`Content-Length\` (the chunk's size is known before its first byte), so \`node:http\` sends the body as it is instead of in chunked framing (four writes and a hex length per piece) and the server parses no framing. A/B in the same rounds (512 MiB x 5, two runs at load 7–13): \`blob\` 1.19 against 1.41 and 1.43 against 1.54 s of upload CPU per GiB (per-round ratios 0.84, 0.82–1.01, and 0.97, 0.84–1.01); \`stream\`, \`stream-fetch\`, \`iterable\`, \`blob-api\` and \`blob-api-fetch\` within the noise (0.93–1.06). \`nodeStreamFetch\` alone sending 50 MiB bodies of 1 MiB pieces to a draining server in another process: 0.20–0.33 s of client CPU per GiB with the length, 0.25–0.39 chunked.`,
  `- The browser's path is not \`blob-api-fetch\`: a browser does not stream request bodies over HTTP/1.1, so there the uploader sends a Blob's chunk as \`blob.slice(start, end)\` and the browser reads the file itself. That path is measured in headless Chromium against a bare \`fetch\` of the same slices: bench/results/upload-chunker-chromium.md (packages/runtime-proof/bench/chromium-uploads.mjs).`,
  `- Memory of the fetch rows: \`blob-api-fetch\` and \`floor\` peak at about 180–190 MiB, near the bar, because Node's fetch (undici) keeps more of a streamed body alive between garbage collections than \`node:http\` does (the same source through \`node:http\`, \`blob-api\`, peaks at about 122 MiB). On a loaded machine one run in five of \`blob-api-fetch\` went over the bar, before this change as after it (225 and 239 MiB, load 7–8): a row that fails on memory alone in such a run is that lag, not bytes the uploader holds.`,
  `- CPU: "upload CPU" is the client process's \`process.cpuUsage()\` (user + system, every thread) from its clock's start to its end, the upload's own cost per GiB; the bar is judged on it. "process CPU" adds starting Node and loading modules (about 0.1 s a process, about 0.08 s more for the uploader's modules than for the ceiling's \`node:http\`), a cost per process rather than per GiB, which weighs more on a small BENCH_SIZE.`,
  `- \`<mode>@base\` rows, when present: the same mode run from another checkout (BENCH_BASE, here main before this round of changes) in the same rounds, for an A/B on the same machine.`,
  `- Every client's clock runs from its initiate request to the answer to its last byte (the uploader with \`waitForCompletion: false\`). Before it, every client makes one request, so that no mode times Node loading its \`fetch\` on first use (about 45 ms), which an application pays once per process.`,
  `- Both simulators run in the benchmark's process and store each chunk the same way (streamed to a temporary file, SHA-256 as it arrives); every upload's server-side SHA-256 was checked. Each client runs in its own child process; RSS is its \`process.resourceUsage().maxRSS\`.`,
];

// The source file: random bytes, written once and read from the page cache by every client.
const work = mkdtempSync(join(tmpdir(), "upload-chunker-bench-"));
const path = join(work, "source.mp4");
const hash = createHash("sha256");
const fd = openSync(path, "w");
const block = Buffer.alloc(16 * MiB);
for (let at = 0; at < SIZE; at += block.length) {
  const piece = block.subarray(0, Math.min(block.length, SIZE - at));
  randomFillSync(piece);
  hash.update(piece);
  writeSync(fd, piece);
}
closeSync(fd);
const sha256 = hash.digest("hex");
// What a `-memory` mode stores: the file's first MiB again and again, up to SIZE bytes.
const memorySha256 = (() => {
  const first = Buffer.alloc(Math.min(MiB, SIZE));
  const source = openSync(path, "r");
  readSync(source, first, 0, first.length, 0);
  closeSync(source);
  const repeated = createHash("sha256");
  for (let at = 0; at < SIZE; at += first.length)
    repeated.update(first.subarray(0, Math.min(first.length, SIZE - at)));
  return repeated.digest("hex");
})();

const chunked = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 0, seed: 1 });
const whole = await startSimulator({ maxChunkSize: SIZE, uploadProcessingDelayMs: 0, seed: 2 });

/** Runs one client in its own process, with a deadline; checks what the server stored. */
async function run(mode) {
  const sim = mode.startsWith("ceiling") ? whole : chunked;
  // BENCH_CPU_PROF=<dir>: every client writes a V8 CPU profile there (node --cpu-prof), one per run.
  const dir = process.env.BENCH_CPU_PROF;
  const profile = dir
    ? ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-name", `${mode}-${Date.now()}.cpuprofile`]
    : [];
  // `<mode>@base`: the same mode from the checkout at BENCH_BASE (see the header).
  const [name, base] = mode.split("@");
  const root = base && process.env[`BENCH_${base.toUpperCase()}`];
  if (base && !root) throw new Error(`${mode}: set BENCH_${base.toUpperCase()} to a built checkout`);
  const client = root ? join(root, "packages/upload-chunker/bench/client.mjs") : join(here, "client.mjs");
  const child = spawn(
    process.execPath,
    [...profile, client, name, sim.filesUrl, sim.apiKey, path, String(SIZE)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  // Even 1 GiB at 20 MiB/s is under a minute: a client still running after this has hung.
  const deadlineMs = 60_000 + (SIZE / MiB) * 250;
  const timer = setTimeout(() => child.kill("SIGKILL"), deadlineMs);
  let line;
  try {
    for await (const text of createInterface({ input: child.stdout })) line = text;
  } finally {
    clearTimeout(timer);
  }
  const exitCode = await new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode ?? child.signalCode)
      : child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  if (exitCode === "SIGKILL") throw new Error(`${mode} client did not finish within ${deadlineMs} ms`);
  if (exitCode !== 0 || !line) throw new Error(`${mode} client failed (exit ${exitCode})`);
  const result = JSON.parse(line);
  if (READS.has(mode)) return result; // nothing was uploaded
  const stored = sim.control.upload(result.uploadId);
  const expected = name.endsWith("-memory") ? memorySha256 : sha256;
  if (stored.sha256 !== expected || stored.size !== SIZE)
    throw new Error(`${mode}: the server's SHA-256 differs`);
  await sim.control.reset(); // deletes the stored bytes
  return result;
}

const READS = new Set([
  "read-fs",
  "read-blob-api",
  "read-blob-stream",
  "read-node-stream",
  "read-web-stream",
]); // no upload: what reading alone costs
const REFERENCES = new Set(["ceiling", "floor", "ceiling-memory"]); // not the uploader: no bar
// The uploader sending a source that costs nothing to read, against ceiling-memory: not a source a
// user has, so no bar; it shows what sending and keeping a chunk cost the uploader alone.
const DIAGNOSTICS = new Set(["iterable-memory"]);
const modes = (
  process.env.BENCH_MODES ??
  "ceiling,floor,stream,stream-fetch,iterable,blob,blob-api,blob-api-fetch,ceiling-memory,iterable-memory,read-fs,read-blob-api,read-blob-stream,read-node-stream,read-web-stream"
).split(",");
const results = Object.fromEntries(modes.map((m) => [m, []]));
try {
  await run("stream"); // warm-up (page cache, JIT); not counted
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      const r = await run(mode);
      results[mode].push(r);
      process.stderr.write(
        `${mode} run ${i + 1}: ${(SIZE / MiB / (r.ms / 1000)).toFixed(0)} MiB/s, peak RSS ${(r.maxRssBytes / MiB).toFixed(0)} MiB, CPU ${cpuPerGiB(r).toFixed(2)} s/GiB\n`,
      );
    }
  }
} finally {
  await chunked.close();
  await whole.close();
  rmSync(work, { recursive: true, force: true });
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1) };
}
/** The upload's own CPU per GiB: from the client's clock start (its initiate) to its last answer. */
function cpuPerGiB(r) {
  return (r.uploadCpu.user + r.uploadCpu.system) / 1e6 / (SIZE / GiB);
}
/** V8's full mark-compacts per GiB while the clock ran (bench/client.mjs observes them). */
function majorGcsPerGiB(r) {
  return (r.gc?.major ?? Number.NaN) / (SIZE / GiB); // NaN: a client from before the count (@base)
}
/** The whole client process's CPU per GiB: starting Node and loading its modules included. */
function processCpuPerGiB(r) {
  return (r.cpu.user + r.cpu.system) / 1e6 / (SIZE / GiB);
}
const fmt = ({ median, min, max }, digits = 0) =>
  `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
const throughput = (r) => SIZE / MiB / (r.ms / 1000);
// Each ratio is taken within a round (the modes of one round run back to back, seconds apart), then
// the median over the rounds: a machine whose speed drifts from round to round (a shared host) moves
// a mode and its reference together, so the drift cancels instead of widening the spread.
const perRound = (mode, reference, measure = throughput) =>
  stats(results[mode].map((r, i) => measure(r) / measure(results[reference][i])));

// The bars (issue 27): a Node source sent as Node sends by default (node:http) reaches 0.95 of the
// ceiling at no more than 1.2 x its CPU per GiB; a source sent through fetch reaches 0.95 of the
// bare-fetch floor, the most fetch and a stream give here before any uploader work. And every client
// stays within the memory bound (README, "Memory bound"): 2 x chunk + 100 MiB of process RSS.
const BAR = { throughput: 0.95, cpu: 1.2 };
function verdict(mode) {
  if (REFERENCES.has(mode.split("@")[0])) return "—";
  if (DIAGNOSTICS.has(mode.split("@")[0])) return "— (no file read: see below)";
  if (smoke) return "not judged (smoke)";
  const misses = [];
  if (mode.split("@")[0].endsWith("-fetch")) {
    if (results.floor && perRound(mode, "floor").median < BAR.throughput) misses.push("throughput vs floor");
  } else if (results.ceiling) {
    if (perRound(mode, "ceiling").median < BAR.throughput) misses.push("throughput");
    if (perRound(mode, "ceiling", cpuPerGiB).median > BAR.cpu) misses.push("CPU");
  }
  if (stats(results[mode].map((r) => r.maxRssBytes)).max > RSS_BAR) misses.push("memory");
  return misses.length === 0 ? "pass" : `FAIL (${misses.join(", ")})`;
}
const uploads = modes.filter((m) => !READS.has(m));
const rows = uploads.map((mode) => {
  const reference = (name, measure) => (results[name] ? fmt(perRound(mode, name, measure), 2) : "–");
  const cpu = stats(results[mode].map(cpuPerGiB));
  const processCpu = stats(results[mode].map(processCpuPerGiB));
  return `| ${mode} | ${fmt(stats(results[mode].map(throughput)))} | ${mode === "ceiling" ? "1" : reference("ceiling")} | ${mode === "floor" ? "1" : reference("floor")} | ${fmt(stats(results[mode].map((r) => r.maxRssBytes / MiB)))} | ${fmt(cpu, 2)} | ${mode === "ceiling" ? "1" : reference("ceiling", cpuPerGiB)} | ${fmt(processCpu, 2)} | ${mode === "ceiling" ? "1" : reference("ceiling", processCpuPerGiB)} | ${fmt(stats(results[mode].map(majorGcsPerGiB)), 1)} | ${verdict(mode)} |`;
});
const readRows = modes
  .filter((m) => READS.has(m))
  .map(
    (mode) =>
      `| ${mode} | ${fmt(stats(results[mode].map(throughput)))} | ${fmt(stats(results[mode].map(cpuPerGiB)), 2)} | ${results.ceiling ? fmt(perRound(mode, "ceiling", cpuPerGiB), 2) : "–"} | ${fmt(stats(results[mode].map(majorGcsPerGiB)), 1)} |`,
  );
// The Blob API's share of what a plain Blob costs more than fileSource, in this run (per round, then
// the median): the extra CPU of reading the same bytes through the Blob API rather than with fs,
// against the extra CPU of the whole blob-api upload over the blob one.
const extra = (mode, reference) =>
  stats(results[mode].map((r, i) => cpuPerGiB(r) - cpuPerGiB(results[reference][i])));
const blobShare =
  results.blob && results["blob-api"] && results["read-fs"] && results["read-blob-api"]
    ? [
        `In this run a plain Blob (\`blob-api\`) cost ${fmt(extra("blob-api", "blob"), 2)} s of CPU per GiB more than a File from \`fileSource\` (\`blob\`), and reading the same bytes through the Blob API cost ${fmt(extra("read-blob-api", "read-fs"), 2)} s per GiB more than with \`fs\` (${((100 * extra("read-blob-api", "read-fs").median) / extra("blob-api", "blob").median).toFixed(0)}% of the first figure): the platform's Blob reader, the copy Node forces (see the notes), not the uploader's work.`,
        ``,
      ]
    : [];
// What Node's Readable.toWeb adds to reading a file stream (it copies every Buffer into a new
// Uint8Array), against the whole stream upload's CPU over the ceiling's.
const toWebShare =
  results.stream && results.ceiling && results["read-node-stream"] && results["read-web-stream"]
    ? [
        `In this run \`Readable.toWeb\` alone (\`read-web-stream\` over \`read-node-stream\`) cost ${fmt(extra("read-web-stream", "read-node-stream"), 2)} s of CPU per GiB, and the whole \`stream\` upload ${fmt(extra("stream", "ceiling"), 2)} s per GiB more than the ceiling: the copy Node's adapter makes of every piece, a cost of the source that \`stream\` and \`stream-fetch\` are given, not of the uploader.`,
        ``,
      ]
    : [];
// The copy the uploader makes of a stream's pieces, against keeping the pieces themselves: the
// `@views` rows run the uploader with bench/experiments/keep-views.patch applied (BENCH_VIEWS).
const viewsShare = ["iterable", "stream"]
  .filter((mode) => results[mode] && results[`${mode}@views`])
  .map((mode) => {
    const views = `${mode}@views`;
    const gcs = (m) => fmt(stats(results[m].map(majorGcsPerGiB)), 1);
    return `In this run \`${views}\` (the stream's own buffers kept as they are, no copy) cost ${fmt(perRound(views, mode, cpuPerGiB), 2)} x the CPU per GiB of \`${mode}\` (copied into reused slabs), at ${fmt(perRound(views, mode), 2)} x its throughput, with ${gcs(views)} full GCs per GiB against ${gcs(mode)}.`;
  });
const viewsLines = viewsShare.length > 0 ? [...viewsShare, ``] : [];
// What the uploader's sending costs when reading costs nothing (both `-memory` rows send one MiB
// already in memory again and again), against what a stream source costs it over the ceiling.
const memoryLines =
  results["iterable-memory"] && results["ceiling-memory"] && results.iterable && results.ceiling
    ? [
        `In this run, with reading taken out (the file's first MiB sent again and again), the uploader (\`iterable-memory\`) cost ${fmt(extra("iterable-memory", "ceiling-memory"), 2)} s of CPU per GiB more than a bare \`node:http\` PUT of the same bytes (\`ceiling-memory\`), ${fmt(perRound("iterable-memory", "ceiling-memory", cpuPerGiB), 2)} x its CPU, against ${fmt(extra("iterable", "ceiling"), 2)} s per GiB more for \`iterable\` over \`ceiling\`: what keeping each chunk for a retry costs (the copy into reused slabs, and sending from slabs the cache no longer holds), beside a request per chunk.`,
        ``,
      ]
    : [];
const load = loadavg()[0];
const table = [
  `# upload-chunker benchmark`,
  ``,
  `${SIZE / MiB} MiB over loopback, chunks of ${CHUNK / MiB} MiB (the simulator's maxChunkSize), ${RUNS} runs per mode, median (min–max). A round runs every mode once, back to back; a ratio is taken within each round, then its median (min–max) over the rounds.`,
  `Bars: a Node source (every row without \`-fetch\`) >= ${BAR.throughput} of the ceiling's throughput and <= ${BAR.cpu} x its CPU per GiB; a \`-fetch\` row >= ${BAR.throughput} of the fetch floor's throughput; every client's peak RSS <= 2 x chunk + 100 MiB = ${RSS_BAR / MiB} MiB (max).`,
  smoke
    ? `**Smoke run** (BENCH_SMOKE=1): sizes too small for the figures to mean anything; bars not enforced.`
    : ``,
  `Load average (1 min) ${loadAtStart.toFixed(1)} at the start, ${load.toFixed(1)} at the end (this benchmark's own processes included), on ${cpus().length} cores${loadAtStart > cpus().length / 2 ? ": **the machine was busy with other work**, so throughput and CPU figures are noisy (the ratios within a round are the figures to read)" : ""}.`,
  ``,
  `| client | MiB/s | throughput to ceiling | throughput to fetch floor | client peak RSS (MiB) | upload CPU (s per GiB) | CPU to ceiling | process CPU (s per GiB) | process CPU to ceiling | full GCs per GiB | bar |`,
  `| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
  ...rows,
  ``,
  ...(readRows.length > 0
    ? [
        `What reading the file alone costs (no upload, same process setup):`,
        ``,
        `| read | MiB/s | CPU (s per GiB) | CPU to the ceiling's whole upload | full GCs per GiB |`,
        `| --- | --- | --- | --- | --- |`,
        ...readRows,
        ``,
        ...blobShare,
        ...toWebShare,
      ]
    : []),
  ...viewsLines,
  ...memoryLines,
  ...NOTES,
  `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString()}.`,
  `- Command: \`pnpm bench\` at the root (builds first), or \`pnpm --filter @promo-review/upload-chunker bench\` after \`pnpm exec turbo build\`, e.g. \`BENCH_SIZE=268435456 BENCH_RUNS=9\` for smaller uploads and more rounds.`,
  ``,
].join("\n");
process.stdout.write(`${table}\n`);
writeResult("upload-chunker", table);
