/**
 * Seeded randomness. Every generated id, key and fault roll comes from a seeded generator so that a
 * failing test can be replayed by starting the simulator with the same seed.
 */

/** A deterministic pseudo-random source (mulberry32: small, fast, good enough for test data). */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  /** `n` pseudo-random bytes. */
  bytes(n: number): Buffer;
  /** A version-4 shaped UUID string. */
  uuid(): string;
}

/** Creates a generator from a 32-bit seed. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const bytes = (n: number): Buffer => {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
    return out;
  };
  return {
    next,
    int: (max) => Math.floor(next() * max),
    bytes,
    uuid: () => {
      const b = bytes(16);
      // Set the version (4) and variant (10xx) bits so the ids pass any UUID validator.
      b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
      b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
      const h = b.toString("hex");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
}

// "Record identifiers are UUID strings" (the spec's opening and "Resources and their fields"), checked
// here and not imported from the client packages: the simulator is written from the spec, not from them (ARCHITECTURE.md, "Rules behind the larger choices"), so a client that misreads the spec is caught, not copied.
/** Matches a UUID in its canonical textual form (any version), case-insensitively. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a canonical UUID string. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_PATTERN.test(value);
}
