/**
 * `createHttpClient` as the Node entry (the `node` export condition) gives it: the same client, with
 * `nodeStreamFetch` as its `fetch` unless the caller passes one. Stream bodies (upload chunks) then go
 * through `node:http`, which on Node moves a large upload faster and with less CPU than the platform's
 * `fetch`; every other request still goes to the platform's `fetch`. Deno and Bun also resolve the
 * `node` condition, and keep their own `fetch`: it is their native client.
 */
import {
  createHttpClient as createPlatformHttpClient,
  type HttpClient,
  type HttpClientOptions,
} from "./client.js";
import { nodeStreamFetch } from "./node-stream-fetch.js";

/** {@inheritDoc createPlatformHttpClient} On Node, `fetch` defaults to `nodeStreamFetch`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  if (options.fetch || !onNode()) return createPlatformHttpClient(options);
  return createPlatformHttpClient({ ...options, fetch: nodeStreamFetch });
}

/** Node itself, not a runtime that resolves the `node` condition for compatibility. */
function onNode(): boolean {
  return !("Deno" in globalThis) && !("Bun" in globalThis);
}
