/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`), and
 * `nodeStreamFetch`, a `fetch` that sends stream bodies (upload chunks) through `node:http`: pass it
 * as `createClient({ fetch: nodeStreamFetch, ... })` for faster large uploads on Node.
 * @packageDocumentation
 */
export { fileSource, nodeStreamFetch } from "@promo-review/upload-chunker/node";
