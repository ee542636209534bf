/**
 * A stream as an upload source: `client.uploads.upload(fromStream(stream), { size, fileName, contentType })`
 * for a web `ReadableStream` or an `AsyncIterable` of bytes (a Node `Readable` too). On its own entry so
 * that a bundle that uploads Files and bytes, or imports everything from the main entry, carries no
 * stream reader.
 * @packageDocumentation
 */
export { fromStream, type StreamSource } from "@promo-review/upload-chunker";
