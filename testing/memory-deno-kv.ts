/**
 * An in-memory stand-in for `Deno.Kv`, for the property tests that run in Node beside the real-deno
 * suites (which are the proof). It keeps the semantics the stores rely on, as the real KV behaves
 * (checked against deno 2.9's local KV): `get` answers a copy and a versionstamp that grows with every
 * commit; an atomic operation applies all its mutations or none, and none when a check's versionstamp
 * differs (null: the key holds nothing); and `expireIn` is only the earliest deletion time: an expired
 * entry stays readable (and blocks a null check) until `purge()` deletes it, as KV's background sweep
 * would. `delay` makes every call wait (to exercise deadlines); `failing` makes every call throw.
 */

type KeyPart = string | number | bigint | boolean | symbol | Uint8Array;
type Key = readonly KeyPart[];

interface Stored {
  key: Key;
  value: unknown;
  versionstamp: string;
  expiresAt: number | undefined;
}

function encode(key: Key): string {
  return JSON.stringify(
    key.map((part) => (part instanceof Uint8Array ? ["u8", Array.from(part)] : [typeof part, String(part)])),
  );
}

/** Options of {@link MemoryDenoKv}. */
export interface MemoryDenoKvOptions {
  /** The clock `expireIn` is measured on (default `Date.now`). */
  now?: () => number;
}

/** The stand-in; see the file's comment. */
export class MemoryDenoKv {
  readonly #entries = new Map<string, Stored>();
  readonly #now: () => number;
  #version = 0n;
  /** Milliseconds every call waits before it acts (default 0). */
  delay = 0;
  /** When set, every call throws this. */
  failing: Error | undefined;
  /** Commits made, successful or not (for tests that count round trips). */
  commits = 0;

  /** @param options see {@link MemoryDenoKvOptions}. */
  constructor(options: MemoryDenoKvOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  async #ready(): Promise<void> {
    if (this.delay > 0) await new Promise((resolve) => setTimeout(resolve, this.delay));
    if (this.failing) throw this.failing;
  }

  /** `Deno.Kv.get`. */
  async get<T = unknown>(key: Key): Promise<{ key: Key; value: T | null; versionstamp: string | null }> {
    await this.#ready();
    const entry = this.#entries.get(encode(key));
    if (entry === undefined) return { key, value: null, versionstamp: null };
    return { key, value: structuredClone(entry.value) as T, versionstamp: entry.versionstamp };
  }

  /** `Deno.Kv.atomic`. */
  atomic() {
    const checks: { key: Key; versionstamp: string | null }[] = [];
    const mutations: ((versionstamp: string) => void)[] = [];
    const op = {
      check: (...more: { key: Key; versionstamp: string | null }[]) => {
        checks.push(...more);
        return op;
      },
      set: (key: Key, value: unknown, options: { expireIn?: number } = {}) => {
        const copy = structuredClone(value);
        mutations.push((versionstamp) => {
          const expiresAt = options.expireIn === undefined ? undefined : this.#now() + options.expireIn;
          this.#entries.set(encode(key), { key, value: copy, versionstamp, expiresAt });
        });
        return op;
      },
      delete: (key: Key) => {
        mutations.push(() => this.#entries.delete(encode(key)));
        return op;
      },
      commit: async (): Promise<{ ok: true; versionstamp: string } | { ok: false }> => {
        await this.#ready();
        this.commits++;
        for (const check of checks) {
          const current = this.#entries.get(encode(check.key))?.versionstamp ?? null;
          if (current !== check.versionstamp) return { ok: false };
        }
        const versionstamp = (++this.#version).toString(16).padStart(20, "0");
        for (const mutate of mutations) mutate(versionstamp);
        return { ok: true, versionstamp };
      },
    };
    return op;
  }

  /** Deletes the entries past their `expireIn`, as KV's sweep eventually does. */
  purge(): void {
    const at = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= at) this.#entries.delete(id);
    }
  }

  /** How many entries are stored, expired or not. */
  get size(): number {
    return this.#entries.size;
  }
}
