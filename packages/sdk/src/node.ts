/**
 * Node-only helpers of the SDK: a file path as an upload source (zero-copy, via `fs.openAsBlob`).
 * @packageDocumentation
 */
export { fileSource } from "@promo-review/upload-chunker/node";
