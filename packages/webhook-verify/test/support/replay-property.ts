/**
 * The replay-store property, shared by the Node suite (over an in-memory stand-in) and the real deno
 * runs (over a KV file): for any sequence of claims from two stores sharing one KV (some concurrent),
 * releases and jumps of the clock, every answer is the one the rule gives. The rule: an id is free when
 * it holds no claim or only an expired one (`expireIn` may leave that entry in KV for a while); of
 * concurrent claims of a free id exactly one wins; a store's release of its current claim frees the id,
 * and a release from a store that never claimed it (an operator's) frees it too. Runs in Node and Deno.
 */
import fc from "fast-check";
import { type DenoKvLike, denoKvReplayStore } from "../../src/deno.js";

type Op =
  | { kind: "claim"; store: 0 | 1; id: string; ttlMs: number; racers: number }
  | { kind: "release-own"; id: string }
  | { kind: "release-other"; id: string }
  | { kind: "advance"; ms: number };

const ids = fc.constantFrom("msg_a", "msg_b", "msg_c");
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("claim" as const),
    store: fc.constantFrom(0 as const, 1 as const),
    id: ids,
    // Long enough that KV's own expiry never runs during a test: only the stored expiry decides.
    ttlMs: fc.integer({ min: 1_000, max: 120_000 }),
    racers: fc.integer({ min: 1, max: 6 }),
  }),
  fc.record({ kind: fc.constant("release-own" as const), id: ids }),
  fc.record({ kind: fc.constant("release-other" as const), id: ids }),
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 150_000 }) }),
);

/** Options of {@link checkReplayProperty}. */
export interface ReplayPropertyOptions {
  /** A fresh, empty KV for one run, and how to close it. */
  openKv(): Promise<{ kv: DenoKvLike; close(): void }>;
  numRuns: number;
  seed?: number | undefined;
}

/** Runs the property; throws fast-check's report on a counterexample. */
export async function checkReplayProperty(options: ReplayPropertyOptions): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
      const { kv, close } = await options.openKv();
      try {
        // A clock far from the real one: expiry is judged on it, never on KV's own timers.
        let clock = 1_000_000;
        const now = () => clock;
        const stores = [denoKvReplayStore(kv, { now }), denoKvReplayStore(kv, { now })];
        const operator = denoKvReplayStore(kv, { now });
        const model = new Map<string, { owner: number; expiresAt: number }>();
        for (const op of ops) {
          if (op.kind === "advance") {
            clock += op.ms;
          } else if (op.kind === "claim") {
            const held = model.get(op.id);
            const free = held === undefined || held.expiresAt <= clock;
            const answers = await Promise.all(
              Array.from({ length: op.racers }, () => stores[op.store]!.claim(op.id, op.ttlMs)),
            );
            const won = answers.filter(Boolean).length;
            if (won !== (free ? 1 : 0)) {
              throw new Error(`claim ${op.id}: ${won} of ${op.racers} won, expected ${free ? 1 : 0}`);
            }
            if (free) model.set(op.id, { owner: op.store, expiresAt: clock + op.ttlMs });
          } else if (op.kind === "release-own") {
            const held = model.get(op.id);
            // Only the store holding the current claim releases it (a handler that failed).
            if (held === undefined || held.expiresAt <= clock) continue;
            await stores[held.owner]!.release(op.id);
            model.delete(op.id);
          } else {
            await operator.release(op.id);
            model.delete(op.id);
          }
        }
      } finally {
        close();
      }
    }),
    { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
}
