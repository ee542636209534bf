/**
 * The transport of stream bodies on Node: `nodeStreamFetch` (see `node-stream-fetch.ts` for why).
 * Deno and Bun also resolve the `node` condition and keep their own `fetch`, their native client.
 * @packageDocumentation
 */
import { nodeStreamFetch } from "./node-stream-fetch.js";

/** The `fetch` for a request with a stream body when the caller gave none: `nodeStreamFetch` on Node itself. */
export function platformStreamFetch(): typeof fetch | undefined {
  return "Deno" in globalThis || "Bun" in globalThis ? undefined : nodeStreamFetch;
}
