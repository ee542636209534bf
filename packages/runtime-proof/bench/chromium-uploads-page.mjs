// The page side of bench/chromium-uploads.mjs, bundled by esbuild for the browser: one upload of the
// File picked in the page's <input type=file>, by the uploader or by a bare-fetch floor, timed with
// the page's own clock from the initiate request to the last chunk's answer.
import { createUploader } from "@promo-review/upload-chunker";

/** The File that `page.setInputFiles` put into the page: backed by the file on disk, not by memory. */
function pickedFile() {
  const file = document.querySelector("input[type=file]")?.files?.[0];
  if (!file) throw new Error("no file in the page's <input type=file>");
  return file;
}

/**
 * Not the uploader: what Chromium's fetch costs to send this File in the service's chunks. The same
 * requests as the uploader's (an initiate, then one PUT a chunk with the same headers, each body the
 * File's `slice()`), one after another, each answer read; it keeps nothing and could retry nothing.
 */
async function floor(file, { filesUrl, apiKey, externalUserId }) {
  const headers = {
    Authorization: `Bearer ${apiKey}`,
    "X-External-User-ID": externalUserId,
    // One id per upload, as the uploader sends one with every request of an upload.
    "X-Correlation-ID": crypto.randomUUID(),
  };
  const size = file.size;
  const started = performance.now();
  const initiated = await fetch(`${filesUrl}/v1/uploads`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({ fileName: "floor.mp4", fileSize: size, contentType: "video/mp4" }),
  });
  const init = await initiated.json();
  if (!initiated.ok) throw new Error(`initiate: HTTP ${initiated.status} ${JSON.stringify(init)}`);
  for (let start = 0; start < size; start += init.maxChunkSize) {
    const end = Math.min(size, start + init.maxChunkSize);
    const response = await fetch(`${filesUrl}${init.uploadUrl}`, {
      method: "PUT",
      body: file.slice(start, end),
      headers: {
        ...headers,
        "Content-Range": `bytes ${start}-${end - 1}/${size}`,
        "Content-Type": "application/octet-stream",
      },
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`chunk at ${start}: HTTP ${response.status}`);
  }
  return { ms: performance.now() - started, uploadId: init.uploadId };
}

/** The uploader with its defaults: in a browser each chunk goes as the File's `slice()` (no streaming). */
async function uploader(file, { filesUrl, apiKey, externalUserId }) {
  const client = createUploader({ filesUrl, apiKey, externalUserId });
  const started = performance.now(); // from the initiate on, as the floor's clock
  const result = await client.upload(file, {
    fileName: "uploader.mp4",
    contentType: "video/mp4",
    waitForCompletion: false,
  });
  return { ms: performance.now() - started, uploadId: result.uploadId };
}

const MODES = { floor, uploader };

/** Called by the benchmark through `page.evaluate`: one upload in `mode`, answered `{ ms, uploadId }`. */
globalThis.benchUpload = async ({ mode, service }) => {
  const run = MODES[mode];
  if (!run) throw new Error(`unknown mode ${mode}`);
  return run(pickedFile(), service);
};
