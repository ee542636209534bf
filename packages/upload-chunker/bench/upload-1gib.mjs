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
 */
import { spawn } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startSimulator } from "@promo-review/simulator";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const SIZE = Number(process.env.BENCH_SIZE ?? 1024 * MiB);
const CHUNK = 50 * MiB;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const here = dirname(fileURLToPath(import.meta.url));
const RSS_BAR = 2 * CHUNK + 100 * MiB;

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

const chunked = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 0, seed: 1 });
const whole = await startSimulator({ maxChunkSize: SIZE, uploadProcessingDelayMs: 0, seed: 2 });

async function run(mode) {
  const sim = mode === "ceiling" ? whole : chunked;
  const child = spawn(
    process.execPath,
    [join(here, "client.mjs"), mode, sim.filesUrl, sim.apiKey, path, String(SIZE)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let line;
  for await (const text of createInterface({ input: child.stdout })) line = text;
  const exitCode = await new Promise((resolve) =>
    child.exitCode === null ? child.once("exit", resolve) : resolve(child.exitCode),
  );
  if (exitCode !== 0 || !line) throw new Error(`${mode} client failed (exit ${exitCode})`);
  const result = JSON.parse(line);
  const stored = sim.control.upload(result.uploadId);
  if (stored.sha256 !== sha256 || stored.size !== SIZE)
    throw new Error(`${mode}: the server's SHA-256 differs`);
  await sim.control.reset(); // deletes the stored bytes
  return result;
}

const modes = (
  process.env.BENCH_MODES ?? "ceiling,floor,stream,stream-fetch,iterable,blob,blob-api,blob-api-fetch"
).split(",");
const results = Object.fromEntries(modes.map((m) => [m, []]));
try {
  await run("stream"); // warm-up (page cache, JIT); not counted
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      const r = await run(mode);
      results[mode].push(r);
      process.stderr.write(
        `${mode} run ${i + 1}: ${(SIZE / MiB / (r.ms / 1000)).toFixed(0)} MiB/s, peak RSS ${(r.maxRssBytes / MiB).toFixed(0)} MiB\n`,
      );
    }
  }
} finally {
  await chunked.close();
  await whole.close();
  rmSync(work, { recursive: true, force: true });
}

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1) };
};
const fmt = ({ median, min, max }, digits = 0) =>
  `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;
const throughput = (r) => SIZE / MiB / (r.ms / 1000);
// Each ratio is taken within a round (the modes of one round run back to back, seconds apart), then
// the median over the rounds: a machine whose speed drifts from round to round (a shared host) moves
// a mode and its reference together, so the drift cancels instead of widening the spread.
const perRound = (mode, reference) =>
  stats(results[mode].map((r, i) => throughput(r) / throughput(results[reference][i])));
const REFERENCES = new Set(["ceiling", "floor"]); // not the uploader: no bar
const rows = modes.map((mode) => {
  const t = stats(results[mode].map(throughput));
  const ratio = perRound(mode, "ceiling");
  const rss = stats(results[mode].map((r) => r.maxRssBytes / MiB));
  const verdict = REFERENCES.has(mode)
    ? "—"
    : ratio.median >= 0.8 && rss.max <= RSS_BAR / MiB
      ? "pass"
      : "FAIL";
  const toFloor = results.floor ? perRound(mode, "floor").median.toFixed(2) : "–";
  const cpu = stats(results[mode].map((r) => (r.cpu.user + r.cpu.system) / 1e6 / (SIZE / GiB)));
  return `| ${mode} | ${fmt(t)} | ${mode === "ceiling" ? "1 (the ceiling)" : fmt(ratio, 2)} | ${toFloor} | ${fmt(rss)} | ${fmt(cpu, 2)} | ${verdict} |`;
});
const table = [
  `# upload-chunker benchmark`,
  ``,
  `${SIZE / MiB} MiB over loopback, chunks of ${CHUNK / MiB} MiB (the simulator's maxChunkSize), ${RUNS} runs per mode, median (min–max). A round runs every mode once, back to back; a ratio is taken within each round, then its median over the rounds.`,
  `Bars: throughput >= 0.80 of the ceiling (median), client peak RSS <= 2 x chunk + 100 MiB = ${RSS_BAR / MiB} MiB (max).`,
  ``,
  `| client | MiB/s | ratio to ceiling | ratio to fetch floor | client peak RSS (MiB) | client CPU (s per GiB) | bar |`,
  `| --- | --- | --- | --- | --- | --- | --- |`,
  ...rows,
  ``,
  `- ceiling: one plain \`node:http\` PUT of the whole file (\`fs.createReadStream\` piped into the request, Content-Length set) to \`PUT /v1/uploads/{id}\` of a simulator started with \`maxChunkSize\` = the file size.`,
  `- floor: not the uploader. The same web stream as \`stream\`, sent in the same 50 MiB chunk PUTs by a bare \`fetch\` that passes each piece straight through and keeps nothing (so it could not retry a chunk): what \`fetch\` and this stream cost here before any uploader work. An uploader must keep a chunk's bytes until the chunk is acknowledged, to send it again after a failure.`,
  `- stream: \`uploader.upload(Readable.toWeb(fs.createReadStream(path, { highWaterMark: 1 MiB })), { size })\` (a web ReadableStream; toWeb copies every piece); every uploader row sends chunk bodies as Node's default does, through node:http (\`nodeStreamFetch\`), and a \`-fetch\` row is the same source with \`fetch: globalThis.fetch\` (Node's fetch, as every other runtime sends); iterable: the \`fs.createReadStream\` itself as an AsyncIterable (no toWeb); blob: \`uploader.upload(await fileSource(path))\` (a File backed by the file, its streamed chunks read with \`fs\`); blob-api: \`uploader.upload(await fs.openAsBlob(path))\`, a plain Blob read through Node's Blob API (64 KiB reads, then copied together). All against a simulator with \`maxChunkSize\` 50 MiB, default \`readAheadBytes\` (8 MiB).`,
  `- Every client's clock runs from its initiate request to the answer to its last byte (the uploader with \`waitForCompletion: false\`). Before it, every client makes one request, so that no mode times Node loading its \`fetch\` on first use (about 45 ms), which an application pays once per process.`,
  `- Both simulators run in the benchmark's process and store each chunk the same way (streamed to a temporary file, SHA-256 as it arrives); every upload's server-side SHA-256 was checked. Each client runs in its own child process; RSS is its \`process.resourceUsage().maxRSS\`, CPU its \`process.cpuUsage()\` (user + system, the whole process, warm-up request included).`,
  `- Machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  ``,
].join("\n");
process.stdout.write(`${table}\n`);
const out = join(here, "..", "..", "..", "bench", "results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "upload-chunker.md"), table);
