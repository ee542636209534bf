/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`), and
 * `nodeStreamFetch`, the `fetch` that sends stream bodies (upload chunks) through `node:http`. It is
 * already the default on Node; it is exported to wrap it in your own `fetch` (logging, tracing).
 * @packageDocumentation
 */
export { fileSource, nodeStreamFetch } from "@promo-review/upload-chunker/node";
