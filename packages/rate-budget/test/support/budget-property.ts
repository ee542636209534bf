/**
 * The Deno KV budget property, shared by the Node suite (over an in-memory stand-in) and the real deno
 * run (over a KV file): for any sequence of decisions from two stores sharing one KV (some racing),
 * tickets settled, pauses and jumps of the clock, every answer is the memory store's on the same clock,
 * so the rule is the exact sliding window whichever isolate decides; of racing decisions, as many are
 * admitted as the memory store admits one after another. Runs in Node and Deno.
 */

import { MemoryStore } from "@promo-review/store";
import fc from "fast-check";
import { type DenoKvLike, denoKvBudgetStore } from "../../src/deno.js";
import type { WindowSpec } from "../../src/rules.js";

type Op =
  | { kind: "take"; store: 0 | 1; set: number; ticket: boolean }
  | { kind: "race"; set: number; racers: number }
  | { kind: "settle"; set: number }
  | { kind: "pause"; ms: number }
  | { kind: "advance"; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("take" as const),
      store: fc.constantFrom(0 as const, 1 as const),
      set: fc.nat(2),
      ticket: fc.boolean(),
    }),
    weight: 4,
  },
  fc.record({ kind: fc.constant("race" as const), set: fc.nat(2), racers: fc.integer({ min: 2, max: 6 }) }),
  fc.record({ kind: fc.constant("settle" as const), set: fc.nat(2) }),
  fc.record({ kind: fc.constant("pause" as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  {
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 2_000 }) }),
    weight: 2,
  },
);

const windowArb = (id: string): fc.Arbitrary<WindowSpec> =>
  fc.record({
    id: fc.constant(id),
    rule: fc.constant(id),
    limit: fc.integer({ min: 1, max: 6 }),
    windowMs: fc.integer({ min: 100, max: 5_000 }),
    holdMs: fc.constantFrom(0, 50, 400),
  });

/** Options of {@link checkBudgetProperty}. */
export interface BudgetPropertyOptions {
  /** A fresh, empty KV for one run, and how to close it. */
  openKv(): Promise<{ kv: DenoKvLike; close(): void }>;
  numRuns: number;
  seed?: number | undefined;
}

/** Runs the property; throws fast-check's report on a counterexample. */
export async function checkBudgetProperty(options: BudgetPropertyOptions): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      windowArb("shared"),
      windowArb("links"),
      fc.array(opArb, { minLength: 1, maxLength: 30 }),
      async (shared, links, ops) => {
        const sets = [[shared], [shared, links], [links]];
        const { kv, close } = await options.openKv();
        try {
          let clock = 1_000_000;
          const now = () => clock;
          const stores = [denoKvBudgetStore(kv, { now }), denoKvBudgetStore(kv, { now })];
          const model = new MemoryStore({ clock: { now } });
          const unsettled: { ticket: string; set: number }[] = [];
          let tickets = 0;
          for (const op of ops) {
            if (op.kind === "advance") clock += op.ms;
            else if (op.kind === "pause") {
              await stores[0]!.pause("k", op.ms);
              model.pause("k", op.ms);
            } else if (op.kind === "settle") {
              const index = unsettled.findIndex((u) => u.set === op.set);
              const { ticket } = index === -1 ? { ticket: "unknown" } : unsettled.splice(index, 1)[0]!;
              await stores[1]!.settle?.("k", sets[op.set]!, ticket);
              model.settle("k", sets[op.set]!, ticket);
            } else if (op.kind === "take") {
              const ticket = op.ticket ? `t${++tickets}` : undefined;
              const got = await stores[op.store]!.take("k", sets[op.set]!, ticket);
              const expected = model.take("k", sets[op.set]!, ticket);
              if (JSON.stringify(got) !== JSON.stringify(expected)) {
                throw new Error(`take: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
              }
              if (ticket !== undefined && got.ok) unsettled.push({ ticket, set: op.set });
            } else {
              const answers = await Promise.all(
                Array.from({ length: op.racers }, (_, i) => stores[i % 2]!.take("k", sets[op.set]!)),
              );
              let expected = 0;
              for (let i = 0; i < op.racers; i++) if (model.take("k", sets[op.set]!).ok) expected++;
              const admitted = answers.filter((a) => a.ok).length;
              if (admitted !== expected) throw new Error(`race: ${admitted} admitted, expected ${expected}`);
            }
          }
        } finally {
          close();
        }
      },
    ),
    { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) },
  );
}
