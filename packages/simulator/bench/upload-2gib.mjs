/**
 * Uploads 2 GiB in 50 MiB chunks to the simulator running in a child process (so its resident memory
 * is measured alone), checks that the server's SHA-256 equals the source's, and prints the peak RSS of
 * the simulator and the throughput. Run after the build: `pnpm bench` (node bench/upload-2gib.mjs).
 */
import { spawn } from "node:child_process";
import { createHash, randomFillSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { sized, writeResult } from "../../../scripts/bench-output.mjs";

// A smoke run (BENCH_SMOKE=1) sends 24 MiB in 4 MiB chunks: it proves the benchmark runs, nothing more.
const TOTAL = sized(2 * 1024 ** 3, 24 * 1024 ** 2);
const CHUNK = sized(50 * 1024 ** 2, 4 * 1024 ** 2);
const RSS_LIMIT_MIB = 200;
const MiB = 1024 ** 2;

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bin.js");
const child = spawn(process.execPath, [bin, "--seed", "1"], { stdio: ["ignore", "pipe", "inherit"] });
const info = await new Promise((resolve, reject) => {
  child.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  createInterface({ input: child.stdout }).once("line", (line) => resolve(JSON.parse(line)));
});

/** Resident memory of the child in bytes (Linux /proc, else ps). */
function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
  } catch {
    return 0;
  }
}
let peak = rssOf(child.pid);
const sampler = setInterval(() => {
  peak = Math.max(peak, rssOf(child.pid));
}, 50);

const headers = { Authorization: `Bearer ${info.apiKey}`, "x-external-user-id": "bench" };
try {
  const init = await fetch(`${info.filesUrl}/v1/uploads`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ fileName: "big.mp4", fileSize: TOTAL, contentType: "video/mp4" }),
  }).then((r) => r.json());
  if (!init.uploadId) throw new Error(`initiation failed: ${JSON.stringify(init)}`);

  // The source is generated chunk by chunk (never 2 GiB in memory here either) and hashed as it goes.
  const sourceHash = createHash("sha256");
  const chunk = Buffer.alloc(CHUNK);
  const started = performance.now();
  for (let start = 0; start < TOTAL; start += CHUNK) {
    const end = Math.min(start + CHUNK, TOTAL) - 1;
    const bytes = chunk.subarray(0, end - start + 1);
    randomFillSync(bytes);
    sourceHash.update(bytes);
    const res = await fetch(`${info.filesUrl}${init.uploadUrl}`, {
      method: "PUT",
      headers: { ...headers, "Content-Range": `bytes ${start}-${end}/${TOTAL}` },
      body: bytes,
    });
    if (res.status !== 200) throw new Error(`chunk at ${start}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  const seconds = (performance.now() - started) / 1000;

  let view;
  do {
    await new Promise((r) => setTimeout(r, 100));
    view = await fetch(`${info.baseUrl}/_sim/uploads/${init.uploadId}`).then((r) => r.json());
  } while (view.status !== "completed");
  const expected = sourceHash.digest("hex");
  const hashOk = view.sha256 === expected && view.size === TOTAL;
  const peakMiB = peak / MiB;
  console.log(
    JSON.stringify(
      {
        bytes: TOTAL,
        chunkBytes: CHUNK,
        seconds: Number(seconds.toFixed(2)),
        throughputMiBps: Number((TOTAL / MiB / seconds).toFixed(1)),
        simulatorPeakRssMiB: Number(peakMiB.toFixed(1)),
        sha256Match: hashOk,
      },
      null,
      2,
    ),
  );
  // The section of bench/RESULTS.md (scripts/bench-report.mjs assembles bench/results/*.md).
  writeResult(
    "simulator",
    [
      `# simulator: a ${TOTAL / 1024 ** 3} GiB upload`,
      "",
      `${TOTAL / MiB} MiB in ${CHUNK / MiB} MiB chunks over loopback to the simulator running alone in a child process`,
      "(bytes streamed to a temporary file and hashed as they arrive); its resident memory sampled every 50 ms.",
      `Bar: simulator peak RSS under ${RSS_LIMIT_MIB} MiB. Node ${process.version}, ${new Date().toISOString()}.`,
      "",
      "| bytes | seconds | MiB/s (incl. generating and hashing the source) | simulator peak RSS | SHA-256 matches |",
      "| ---: | ---: | ---: | ---: | :---: |",
      `| ${TOTAL} | ${seconds.toFixed(2)} | ${(TOTAL / MiB / seconds).toFixed(1)} | ${peakMiB.toFixed(1)} MiB | ${hashOk ? "yes" : "NO"} |`,
      "",
      "Command: `pnpm --filter @promo-review/simulator bench` (or `pnpm bench` at the root).",
      "",
    ].join("\n"),
  );
  if (!hashOk) throw new Error(`SHA-256 mismatch: server ${view.sha256}, source ${expected}`);
  if (peakMiB >= RSS_LIMIT_MIB)
    throw new Error(`simulator peak RSS ${peakMiB.toFixed(1)} MiB >= ${RSS_LIMIT_MIB} MiB`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}
