/**
 * The transport of stream bodies where no faster one than the client's `fetch` is known (browsers,
 * workers, Deno, Bun). The `node` condition of this package's `#stream-fetch` import picks
 * `stream-fetch.node.ts` instead.
 * @packageDocumentation
 */

/** The `fetch` for a request with a stream body when the caller gave none: none here, so the client's own. */
export function platformStreamFetch(): typeof fetch | undefined {
  return undefined;
}
