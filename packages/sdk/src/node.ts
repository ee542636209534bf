/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`), a
 * batch manifest read from a file (`manifestFile`), and a batch's file journal (`fileJournal`).
 * `nodeStreamFetch`, the `fetch` that sends upload chunks through `node:http` (the default on Node),
 * is exported from `@promo-review/http/node`, to wrap it in your own `fetch` (logging, tracing).
 * @packageDocumentation
 */
export { fileSource } from "@promo-review/upload-chunker/node";
export { type FileJournalOptions, fileJournal } from "./batch/file-journal.js";
export { type ManifestFile, manifestFile, manifestFormatOf } from "./batch/manifest-file.js";
