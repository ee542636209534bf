import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { flakyAdapter } from "../test/support/flaky-adapter.js";
import type { StoreCall } from "./adapter.js";
import { rememberingRefusals } from "./known-refusals.js";
import type { StoreWindow } from "./window.js";

const call: StoreCall = { signal: new AbortController().signal, notAfter: Number.POSITIVE_INFINITY };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a refusal answered by the backend answers the takes that need its window until it ends", () => {
  it("refuses here, without asking, a take needing a full window; asks again once it may fit", async () => {
    const backend = flakyAdapter();
    const adapter = rememberingRefusals(backend);
    const windows: StoreWindow[] = [{ id: "w", limit: 1, windowMs: 80 }];
    expect(await adapter.take("k", windows, "m1", false, call)).toEqual({ ok: true });
    const refused = await adapter.take("k", windows, "m2", false, call);
    expect(refused).toMatchObject({ ok: false, full: ["w"], paused: false });
    const asked = backend.calls.length;
    const again = await adapter.take("k", windows, "m3", false, call);
    expect(again).toMatchObject({ ok: false, full: ["w"], paused: false });
    expect(backend.calls.length).toBe(asked);
    // Another key, and a take not needing the full window, still ask.
    expect(await adapter.take("other", windows, "m4", false, call)).toEqual({ ok: true });
    expect(await adapter.take("k", [{ id: "v", limit: 5, windowMs: 80 }], "m5", false, call)).toEqual({
      ok: true,
    });
    await sleep(refused.ok ? 0 : refused.waitMs + 5);
    expect(await adapter.take("k", windows, "m6", false, call)).toEqual({ ok: true });
  });

  it("remembers a pause for every window of the key", async () => {
    const backend = flakyAdapter();
    const adapter = rememberingRefusals(backend);
    await adapter.pause("k", 60_000, call);
    expect(await adapter.take("k", [{ id: "a", limit: 5, windowMs: 1000 }], "m1", false, call)).toMatchObject(
      {
        ok: false,
        paused: true,
      },
    );
    const asked = backend.calls.length;
    expect(await adapter.take("k", [{ id: "b", limit: 5, windowMs: 1000 }], "m2", false, call)).toMatchObject(
      {
        ok: false,
        paused: true,
      },
    );
    expect(backend.calls.length).toBe(asked);
  });

  it("does not remember a refusal naming several full windows (one of them alone may fit sooner)", async () => {
    const backend = flakyAdapter();
    const adapter = rememberingRefusals(backend);
    const both: StoreWindow[] = [
      { id: "short", limit: 1, windowMs: 50 },
      { id: "long", limit: 1, windowMs: 60_000 },
    ];
    await adapter.take("k", both, "m1", false, call);
    expect(await adapter.take("k", both, "m2", false, call)).toMatchObject({
      ok: false,
      full: ["short", "long"],
    });
    const asked = backend.calls.length;
    await adapter.take("k", [both[0]!], "m3", false, call);
    expect(backend.calls.length).toBe(asked + 1);
  });

  it("while a key is contended, concurrent takes wait for the one in flight; once it is admitted they go on together", async () => {
    const backend = flakyAdapter();
    // Takes held until the test lets them go, to see which are in flight at once.
    const held: (() => void)[] = [];
    let holding = false;
    const gated: typeof backend = Object.create(backend);
    gated.take = async (...args) => {
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      return backend.take(...args);
    };
    const adapter = rememberingRefusals(gated);
    const windows: StoreWindow[] = [{ id: "w", limit: 2, windowMs: 2_000 }];
    await adapter.take("k", windows, "m1", false, call);
    await adapter.take("k", windows, "m2", false, call);
    expect(await adapter.take("k", windows, "m3", false, call)).toMatchObject({ ok: false });
    await sleep(2_050);
    // The window has room for two again; the key is contended (its last answer a refusal).
    holding = true;
    const decisions = Promise.all(
      ["a", "b", "c", "d"].map((m) => adapter.take("k", windows, m, false, call)),
    );
    await vi.waitFor(() => expect(held).toHaveLength(1));
    await sleep(5);
    expect(held).toHaveLength(1);
    // The one asking is admitted: the three that waited ask at once (a pipelining client sends them
    // in one round trip), not one behind the other.
    held.shift()!();
    await vi.waitFor(() => expect(held).toHaveLength(3));
    holding = false;
    for (const go of held.splice(0)) go();
    expect((await decisions).filter((d) => d.ok)).toHaveLength(2);
  });

  it("refuses here only what the backend would refuse at that moment, for any schedule", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "ab"), fc.integer({ min: 0, max: 12 })), {
          minLength: 1,
          maxLength: 25,
        }),
        async (schedule) => {
          const backend = flakyAdapter();
          const adapter = rememberingRefusals(backend);
          const a: StoreWindow = { id: "a", limit: 2, windowMs: 40 };
          const b: StoreWindow = { id: "b", limit: 3, windowMs: 25 };
          const windows = { a: [a], b: [b], ab: [a, b] };
          for (const [i, [which, pause]] of schedule.entries()) {
            await sleep(pause);
            const asked = backend.calls.length;
            const decision = await adapter.take("k", windows[which], `m${i}`, false, call);
            if (backend.calls.length === asked) {
              // Answered here: the backend, asked now, refuses too (unless the room came back in the
              // millisecond between the two questions).
              expect(decision.ok).toBe(false);
              if (!decision.ok && decision.waitMs > 2)
                expect((await backend.take("k", windows[which], `check${i}`, false, call)).ok).toBe(false);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
