/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`).
 * `nodeStreamFetch`, the `fetch` that sends upload chunks through `node:http` (the default on Node),
 * is exported from `@promo-review/http/node`, to wrap it in your own `fetch` (logging, tracing).
 * @packageDocumentation
 */
export { fileSource } from "@promo-review/upload-chunker/node";
