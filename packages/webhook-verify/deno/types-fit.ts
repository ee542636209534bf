// Type-checked by `deno check` against Deno's own declarations (src/deno.test.ts): a real Deno.Kv fits
// the store's structural type, with nothing cast, and so does every kind of key part.
import { denoKvReplayStore } from "../src/deno.ts";

export function storeOf(kv: Deno.Kv) {
  return denoKvReplayStore(kv, { prefix: ["a", 1, 2n, true, Symbol("s"), new Uint8Array(1)] });
}
