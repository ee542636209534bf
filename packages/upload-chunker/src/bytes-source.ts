/**
 * Bytes in memory (an `ArrayBuffer`, a typed array, a `DataView`) as a source: views of the caller's
 * bytes, reachable at any offset and never copied.
 */
import { bounded } from "./pieces.js";
import type { ByteSource } from "./types.js";

/** Opens `bytes` (see `bytesOf` for any `ArrayBuffer` or view of one). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.byteLength,
    seekable: true,
    floor: 0,
    load: async () => {},
    prefetch: () => {},
    range(start, end) {
      const sub = bytes.subarray(start, end);
      return { whole: () => sub, pieces: () => bounded([sub]) };
    },
    release: () => {},
    close: async () => {},
  };
}
