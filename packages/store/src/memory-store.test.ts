import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeSwap } from "../../../testing/store-swap.ts";
import { MemoryStore, memoryStore } from "./memory-store.js";
import type { StoreWindow } from "./window.js";
import { applyWindowOp, emptyWindowState, isWindowState, windowStateEnd } from "./window-state.js";

const WINDOWS: StoreWindow[] = [
  { id: "minute", limit: 5, windowMs: 1000, holdMs: 100 },
  { id: "burst", limit: 3, windowMs: 200 },
];

/** A store whose clock the test moves. */
function storeAt(start = 0) {
  const clock = { at: start, now: () => clock.at };
  return { clock, store: memoryStore({ clock }) };
}

describe("a claim is held once until it expires", () => {
  it("of two claims of one key the first wins; after its TTL or a release the key is free", async () => {
    const { clock, store } = storeAt();
    expect(await store.claim("msg_1", 1000)).toBe(true);
    expect(await store.claim("msg_1", 1000)).toBe(false);
    clock.at = 999;
    expect(await store.claim("msg_1", 1000)).toBe(false);
    clock.at = 1000;
    expect(await store.claim("msg_1", 1000)).toBe(true);
    await store.release("msg_1");
    expect(await store.claim("msg_1", 1000)).toBe(true);
  });

  it("expired claims are dropped as new ones arrive: memory holds one TTL's claims", async () => {
    const { clock, store } = storeAt();
    for (let i = 0; i < 100; i++) await store.claim(`old-${i}`, 10);
    clock.at = 10;
    await store.claim("new", 10);
    // Every old one is free again (dropped), the new one is held.
    expect(await store.claim("old-0", 10)).toBe(true);
    expect(await store.claim("new", 10)).toBe(false);
  });
});

describe("a value is kept until its TTL or its deletion", () => {
  it("get answers what set wrote, until it expires or is deleted", async () => {
    const { clock, store } = storeAt();
    expect(await store.get("f")).toBeUndefined();
    await store.set("f", "one", 100);
    await store.set("f", "two", 100);
    expect(await store.get("f")).toBe("two");
    clock.at = 100;
    expect(await store.get("f")).toBeUndefined();
    await store.set("f", "three", 100);
    await store.delete("f");
    expect(await store.get("f")).toBeUndefined();
  });
});

describe("the window operation on plain data decides exactly as the memory store", () => {
  it("for any sequence of takes, tickets, settles and pauses, both answer alike", () => {
    const step = fc.record({
      advance: fc.integer({ min: 0, max: 400 }),
      call: fc.constantFrom("take", "ticket", "settle", "pause"),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const memory = storeAt(1);
        // Through JSON each time, as a backend stores it.
        let saved = JSON.stringify(emptyWindowState());
        const tickets: string[] = [];
        for (const [i, { advance, call }] of steps.entries()) {
          memory.clock.at += advance;
          const now = memory.clock.at;
          const state = JSON.parse(saved);
          expect(isWindowState(state)).toBe(true);
          if (call === "take" || call === "ticket") {
            const ticket = call === "ticket" ? `t${i}` : undefined;
            const expected = memory.store.take("k", WINDOWS, ticket);
            const { decision } = applyWindowOp(
              state,
              { op: "take", windows: WINDOWS, member: ticket ?? `m${i}`, ticketed: ticket !== undefined },
              now,
            );
            expect(decision).toEqual(expected);
            if (expected.ok && ticket) tickets.push(ticket);
          } else if (call === "settle") {
            const ticket = tickets.shift() ?? "unknown";
            memory.store.settle("k", WINDOWS, ticket);
            applyWindowOp(state, { op: "settle", windows: WINDOWS, ticket }, now);
          } else {
            memory.store.pause("k", 150);
            applyWindowOp(state, { op: "pause", ms: 150 }, now);
          }
          saved = JSON.stringify(state);
        }
      }),
    );
  });

  it("the state ends when its last admission and its pause stop counting", () => {
    const state = emptyWindowState();
    expect(windowStateEnd(state)).toBeUndefined();
    applyWindowOp(state, { op: "take", windows: WINDOWS, member: "m", ticketed: true }, 1000);
    // The ticket counts from 1000 + holdMs 100, for the longer window: until 2100.
    expect(windowStateEnd(state)).toBe(2100);
    applyWindowOp(state, { op: "pause", ms: 5000 }, 1000);
    expect(windowStateEnd(state)).toBe(6000);
    expect(applyWindowOp(state, { op: "pause", ms: 10 }, 1000).changed).toBe(false);
  });

  it("a clock behind the key's never reopens a window another process filled", () => {
    const state = emptyWindowState();
    const one: StoreWindow[] = [{ id: "w", limit: 1, windowMs: 1000 }];
    expect(
      applyWindowOp(state, { op: "take", windows: one, member: "a", ticketed: false }, 5000).decision,
    ).toEqual({
      ok: true,
    });
    expect(
      applyWindowOp(state, { op: "take", windows: one, member: "b", ticketed: false }, 0).decision,
    ).toMatchObject({
      ok: false,
      waitMs: 1000,
    });
  });

  it("anything but a state read back counts as none", () => {
    for (const value of [null, 1, "x", { at: 1 }, { at: 1, pausedUntil: 0, windows: null }]) {
      expect(isWindowState(value)).toBe(false);
    }
  });

  it("is a MemoryStore, synchronous, named memory", () => {
    const store = memoryStore();
    expect(store).toBeInstanceOf(MemoryStore);
    expect(store.synchronous).toBe(true);
    expect(store.where).toBe("memory");
    expect(store.take("k", WINDOWS)).toEqual({ ok: true });
  });
});

{
  // One process: "two stores" are the one store; a manual clock passes the TTL.
  const clock = { at: 0, now: () => clock.at };
  describeSwap("memory store", {
    stores: () => {
      const store = memoryStore({ clock });
      return [store, store];
    },
    pass: async (ms) => {
      clock.at += ms + 1;
    },
  });
}
