/**
 * The User-Agent of a browser build: none. The `browser` condition of this package's `#user-agent`
 * import picks this module, so a page's bundle carries no runtime detection (`user-agent.ts`), which
 * in a browser finds one and adds nothing: the header is not the page's to set, and a CORS preflight
 * could refuse it. Workers and edge functions, whose builds resolve `browser` too, are named first in
 * that import (`workerd`, `worker`, `edge-light`) and keep the detection, as Node, Deno and Bun do.
 * @packageDocumentation
 */
import type { UserAgentOptions } from "./user-agent.js";

/** The `User-Agent` a browser build sends: none, whatever the options (see `user-agent.ts`'s `userAgent`). */
export function userAgent(_options?: UserAgentOptions): string | undefined {
  return undefined;
}
