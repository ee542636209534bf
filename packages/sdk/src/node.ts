/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`), and
 * a batch manifest read from a file (`manifestFile`). `nodeStreamFetch`, the `fetch` that sends upload
 * chunks through `node:http` (the default on Node), is exported from `@promo-review/http/node`, to wrap
 * it in your own `fetch` (logging, tracing).
 * @packageDocumentation
 */
export { fileSource } from "@promo-review/upload-chunker/node";
export { type ManifestFile, manifestFile, manifestFormatOf } from "./batch/manifest-file.js";
