import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { endOf, restoreInto, snapshotOf } from "./budget-snapshot.js";
import { MemoryStore } from "./memory-store.js";
import type { WindowSpec } from "./rules.js";

const WINDOWS: WindowSpec[] = [
  { id: "minute", rule: "minute", limit: 5, windowMs: 1000, holdMs: 100 },
  { id: "burst", rule: "minute", limit: 3, windowMs: 200 },
];

/** A store whose clock the test moves. */
function storeAt(start = 0) {
  const clock = { at: start, now: () => clock.at };
  return { clock, store: new MemoryStore({ clock }) };
}

describe("a key's budgets survive a snapshot and restore (what the Durable Object persists)", () => {
  it("a restored store makes the same decisions as the one it was taken from, for any sequence of calls", () => {
    const step = fc.record({
      advance: fc.integer({ min: 0, max: 400 }),
      call: fc.constantFrom("take", "ticket", "settle", "pause"),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.array(step, { maxLength: 20 }), (before, after) => {
        const original = storeAt();
        const tickets: string[] = [];
        const run = (s: ReturnType<typeof storeAt>, steps: typeof before, log: unknown[]) => {
          for (const [i, { advance, call }] of steps.entries()) {
            s.clock.at += advance;
            if (call === "pause") s.store.pause("k", advance);
            else if (call === "settle") s.store.settle("k", WINDOWS, tickets.at(-1) ?? "none");
            else {
              const ticket = call === "ticket" ? `t${s.clock.at}:${i}` : undefined;
              const decision = s.store.take("k", WINDOWS, ticket);
              if (decision.ok && ticket) tickets.push(ticket);
              log.push(decision);
            }
          }
        };
        run(original, before, []);
        const restored = storeAt(original.clock.at);
        // Through JSON, as storage and the wire would carry it.
        restoreInto(
          restored.store,
          restored.clock,
          "k",
          JSON.parse(JSON.stringify(snapshotOf(original.store, "k", original.clock.at))),
        );
        const expected: unknown[] = [];
        const actual: unknown[] = [];
        const savedTickets = [...tickets];
        run(original, after, expected);
        tickets.splice(0, tickets.length, ...savedTickets);
        run(restored, after, actual);
        expect(actual).toEqual(expected);
      }),
    );
  });

  it("keeps only what still counts: admissions inside their window and a pause in force", () => {
    const { clock, store } = storeAt(1000);
    expect(snapshotOf(store, "k", clock.at)).toEqual({ windows: [] });
    store.take("k", WINDOWS);
    store.take("k", WINDOWS, "ticket-1");
    store.pause("k", 500);
    expect(snapshotOf(store, "k", clock.at)).toEqual({
      pausedUntil: 1500,
      windows: [
        {
          id: "minute",
          limit: 5,
          windowMs: 1000,
          holdMs: 100,
          times: [1000],
          pending: [{ ticket: "ticket-1", at: 1000 }],
        },
        {
          id: "burst",
          limit: 3,
          windowMs: 200,
          holdMs: 0,
          times: [1000],
          pending: [{ ticket: "ticket-1", at: 1000 }],
        },
      ],
    });
    clock.at = 2101;
    expect(snapshotOf(store, "k", clock.at)).toEqual({ windows: [] });
  });

  it("restores a pause and a full window into a fresh store", () => {
    const { clock, store } = storeAt(0);
    restoreInto(store, clock, "k", {
      pausedUntil: 50,
      windows: [
        {
          id: "burst",
          limit: 3,
          windowMs: 200,
          holdMs: 0,
          times: [-20, -10],
          pending: [{ ticket: "t", at: -5 }],
        },
      ],
    });
    expect(clock.at).toBe(0);
    expect(store.take("k", WINDOWS)).toMatchObject({ ok: false, paused: true, waitMs: 50 });
    expect(endOf(snapshotOf(store, "k", clock.at))).toBe(195);
    clock.at = 50;
    expect(store.take("k", WINDOWS)).toEqual({ ok: false, paused: false, waitMs: 130, full: ["burst"] });
    expect(endOf({ windows: [] })).toBeUndefined();
  });
});
