/**
 * One benchmark client, run in its own process so that its peak resident memory is its own. Modes:
 *   ceiling  one plain node:http PUT of the whole file (fs read stream piped into the request)
 *   stream   the uploader with a web ReadableStream over the file (size declared)
 *   blob     the uploader with fileSource(path) (a File backed by the file; chunks read with fs)
 *   blob-api the uploader with fs.openAsBlob(path) as a plain Blob (chunks read through the Blob API)
 *   iterable the uploader with fs.createReadStream(path) as an AsyncIterable (no Readable.toWeb)
 *   ceiling-memory, iterable-memory  the ceiling's plain node:http PUT and the uploader with an
 *            AsyncIterable, both sending the file's first MiB again and again (read before the clock):
 *            what sending costs each of them when reading costs nothing
 *   <mode>-fetch a mode above with `fetch: globalThis.fetch` (chunk bodies through Node's fetch, not node:http)
 *   read-fs, read-blob-api, read-blob-stream  no upload: only read the file, with fs (1 MiB reads
 *            into one buffer), through the Blob API in 1 MiB slices (arrayBuffer()), or through
 *            Blob.stream() copied into one 1 MiB buffer; read-node-stream, read-web-stream: the
 *            fs.createReadStream of `iterable`, and the Readable.toWeb of it that `stream` uses, so
 *            the table can say what reading alone costs each source
 *   floor    not the uploader: the same web stream as `stream`, sent in the same 50 MiB chunk PUTs by a
 *            bare `fetch` that passes each piece straight through and keeps nothing (so it could never
 *            retry a chunk). What fetch and this stream cost on this machine, before any uploader.
 * Prints one JSON line: { mode, ms, maxRssBytes, cpu: { user, system } (microseconds, the whole
 * process), uploadCpu: { user, system } (from the clock's start on: the upload's own), gc: { major,
 * minor, majorMs } (V8's collections from the clock's start on), uploadId }.
 */
import { createReadStream, openAsBlob } from "node:fs";
import { open } from "node:fs/promises";
import { request } from "node:http";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { Readable } from "node:stream";
import { createUploader, fromStream } from "../dist/index.js";
import { fileSource } from "../dist/node.js";

const [mode, filesUrl, apiKey, path, sizeText] = process.argv.slice(2);
const size = Number(sizeText);
const MiB = 1024 * 1024;

// The process's CPU when the clock starts: what the upload itself cost (its initiate and its bytes),
// without starting Node and loading modules, a cost per process rather than per GiB.
let cpuAtStart;
let clockStarted = Infinity;
function startClock() {
  cpuAtStart = process.cpuUsage();
  clockStarted = performance.now();
  return clockStarted;
}

// V8's garbage collections once the clock runs: a full mark-compact (major) is what buffers kept
// alive longer than a scavenge provoke (a stream's fresh pieces, kept views); the table counts them.
const gc = { major: 0, minor: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.startTime < clockStarted) continue;
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.major++;
      gc.majorMs += entry.duration;
    } else if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
  }
}).observe({ entryTypes: ["gc"] });

/**
 * The `-memory` modes' source: the file's first MiB, read before the clock starts and handed out
 * again and again (a view of the same buffer each time) up to `size` bytes, so that reading costs
 * nothing and the row shows what sending and keeping cost alone.
 */
async function firstMiB() {
  const handle = await open(path, "r");
  const buffer = Buffer.alloc(Math.min(MiB, size));
  await handle.read(buffer, 0, buffer.length, 0);
  await handle.close();
  return buffer;
}
async function* repeated(buffer) {
  for (let at = 0; at < size; at += buffer.length)
    yield buffer.subarray(0, Math.min(buffer.length, size - at));
}

/** `ceiling` (the file through fs.createReadStream) or `ceiling-memory` (the first MiB again and again). */
async function ceiling(fromMemory) {
  const memory = fromMemory ? await firstMiB() : undefined; // read before the clock starts
  const body = () =>
    memory
      ? Readable.from(repeated(memory), { objectMode: false, highWaterMark: MiB })
      : createReadStream(path, { highWaterMark: MiB });
  const headers = {
    Authorization: `Bearer ${apiKey}`,
    "X-External-User-ID": "bench",
    "Content-Type": "application/json",
  };
  const started = startClock(); // from the initiate on, as the uploader's own initiate is timed
  const init = await fetch(`${filesUrl}/v1/uploads`, {
    method: "POST",
    headers,
    body: JSON.stringify({ fileName: "ceiling.mp4", fileSize: size, contentType: "video/mp4" }),
  }).then((r) => r.json());
  await new Promise((resolve, reject) => {
    const req = request(`${filesUrl}${init.uploadUrl}`, {
      method: "PUT",
      headers: {
        Authorization: `Bearer ${apiKey}`,
        "X-External-User-ID": "bench",
        "Content-Range": `bytes 0-${size - 1}/${size}`,
        "Content-Length": size,
        "Content-Type": "application/octet-stream",
      },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    body().pipe(req); // with the socket's backpressure
  });
  return { ms: performance.now() - started, uploadId: init.uploadId };
}

async function floor() {
  const headers = { Authorization: `Bearer ${apiKey}`, "X-External-User-ID": "bench" };
  const started = startClock(); // from the initiate on, as the uploader's own initiate is timed
  const init = await fetch(`${filesUrl}/v1/uploads`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ fileName: "floor.mp4", fileSize: size, contentType: "video/mp4" }),
  }).then((r) => r.json());
  const reader = Readable.toWeb(createReadStream(path, { highWaterMark: MiB })).getReader();
  let rest; // the part of a piece that belongs to the next chunk
  for (let start = 0; start < size; start += init.maxChunkSize) {
    const end = Math.min(size, start + init.maxChunkSize);
    let at = start;
    const body = new ReadableStream(
      {
        async pull(controller) {
          if (at >= end) return controller.close();
          let piece = rest ?? (await reader.read()).value;
          rest = undefined;
          if (at + piece.byteLength > end) {
            rest = piece.subarray(end - at);
            piece = piece.subarray(0, end - at);
          }
          at += piece.byteLength;
          controller.enqueue(piece);
        },
      },
      { highWaterMark: 0 },
    );
    const response = await fetch(`${filesUrl}${init.uploadUrl}`, {
      method: "PUT",
      body,
      duplex: "half",
      headers: {
        ...headers,
        "Content-Range": `bytes ${start}-${end - 1}/${size}`,
        "Content-Type": "application/octet-stream",
      },
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }
  return { ms: performance.now() - started, uploadId: init.uploadId };
}

async function chunker(mode) {
  // On Node the uploader sends chunk bodies through node:http (nodeStreamFetch) by default; a "-fetch"
  // mode is the same source through the platform's fetch, as every other runtime sends it.
  const viaFetch = mode.endsWith("-fetch");
  const kind = viaFetch ? mode.slice(0, -"-fetch".length) : mode;
  const uploader = createUploader({
    filesUrl,
    apiKey,
    externalUserId: "bench",
    fetch: viaFetch ? globalThis.fetch : undefined, // undefined: the default (node:http on Node)
  });
  const highWaterMark = Number(process.env.HWM ?? MiB);
  const source =
    kind === "iterable-memory"
      ? fromStream(repeated(await firstMiB())) // one buffer again and again, read before the clock: free to read
      : kind === "stream"
        ? fromStream(Readable.toWeb(createReadStream(path, { highWaterMark })))
        : kind === "iterable"
          ? fromStream(createReadStream(path, { highWaterMark })) // a Node Readable is an AsyncIterable of Buffers
          : kind === "blob-api"
            ? await openAsBlob(path) // a plain Blob: its chunks are read through the Blob API
            : await fileSource(path);
  const started = startClock();
  const result = await uploader.upload(source, {
    fileName: `${mode}.mp4`,
    contentType: "video/mp4",
    size,
    waitForCompletion: false,
  });
  return { ms: performance.now() - started, uploadId: result.uploadId };
}

/** Reads the file once, without sending it: what the source's reading costs on its own. */
async function readOnly(mode) {
  const started = startClock();
  if (mode === "read-fs") {
    const handle = await open(path, "r");
    const buffer = Buffer.allocUnsafe(MiB);
    for (let at = 0; at < size; at += MiB) await handle.read(buffer, 0, Math.min(MiB, size - at), at);
    await handle.close();
  } else if (mode === "read-blob-api") {
    const blob = await openAsBlob(path);
    for (let at = 0; at < size; at += MiB) await blob.slice(at, at + MiB).arrayBuffer();
  } else if (mode === "read-node-stream" || mode === "read-web-stream") {
    // The file as the `iterable` and `stream` sources give it, read and dropped: what a Node stream
    // costs, and what Readable.toWeb adds to it (it copies every piece into a new Uint8Array).
    const stream = createReadStream(path, { highWaterMark: MiB });
    for await (const _ of mode === "read-web-stream" ? Readable.toWeb(stream) : stream);
  } else {
    // read-blob-stream: Blob.stream()'s pieces copied into one reused 1 MiB buffer, the alternative to
    // the uploader's 1 MiB arrayBuffer() reads (see the benchmark's notes for why it is not taken).
    const blob = await openAsBlob(path);
    const buffer = new Uint8Array(MiB);
    let filled = 0;
    for await (const piece of blob.stream()) {
      for (let at = 0; at < piece.byteLength; ) {
        const n = Math.min(MiB - filled, piece.byteLength - at);
        buffer.set(piece.subarray(at, at + n), filled);
        filled = (filled + n) % MiB;
        at += n;
      }
    }
  }
  return { ms: performance.now() - started };
}

// Every mode times its initiate request and its bytes, and none times the process's first fetch: Node
// loads and compiles its fetch on first use (about 45 ms here), a cost of starting a process, not of
// uploading, that an application pays once. One request every client makes before its clock starts.
await fetch(`${filesUrl}/v1/uploads/warm-up`).then((r) => r.arrayBuffer());

const outcome = mode.startsWith("read-")
  ? await readOnly(mode)
  : mode === "ceiling" || mode === "ceiling-memory"
    ? await ceiling(mode === "ceiling-memory")
    : mode === "floor"
      ? await floor()
      : await chunker(mode);
// The observer's last entries are delivered asynchronously: let them arrive before reporting.
await new Promise((resolve) => setImmediate(resolve));
// maxRSS is the process's peak resident set (kilobytes on Linux and macOS).
process.stdout.write(
  `${JSON.stringify({ mode, ...outcome, maxRssBytes: process.resourceUsage().maxRSS * 1024, gc, cpu: process.cpuUsage(), uploadCpu: process.cpuUsage(cpuAtStart) })}\n`,
);
