/**
 * Counts the requests a run makes, per service, through the `fetch` the client is given. The main
 * API's count is what the run spent of the per-key budget (60 a minute); the file service has none.
 */
import { nodeStreamFetch } from "@promo-review/http/node";

/** Requests made so far. */
export interface RequestCounts {
  /** Main-API requests (each spends the shared budget). */
  main: number;
  /** File-service requests (initiation, chunks, status). */
  files: number;
  /** Chunk PUTs, so the number of chunks an upload took. */
  chunks: number;
}

/** A `fetch` that counts, and what it counted. */
export interface CountingFetch {
  fetch: typeof fetch;
  readonly counts: RequestCounts;
}

/**
 * Wraps `base`, classifying each request by the service its URL is on. The default is what a client
 * uses on Node when given no `fetch`: `nodeStreamFetch` (upload chunks through `node:http`, every
 * other request through the platform's `fetch`), so a counted run sends exactly as an uncounted one.
 */
export function countingFetch(
  urls: { baseUrl: string; filesUrl: string },
  base: typeof fetch = nodeStreamFetch,
): CountingFetch {
  const counts: RequestCounts = { main: 0, files: 0, chunks: 0 };
  const within = (url: string, root: string) => url.startsWith(root.replace(/\/+$/, ""));
  const counted: typeof fetch = (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : String(input);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    // The file service is checked first: it may share a host with the main API on another path.
    if (within(url, urls.filesUrl)) {
      counts.files++;
      if (method === "PUT") counts.chunks++;
    } else if (within(url, urls.baseUrl)) {
      counts.main++;
    }
    return base(input, init);
  };
  return { fetch: counted, counts };
}
