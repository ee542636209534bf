import fc from "fast-check";
import { describe, expect, it } from "vitest";
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

  it("while a key is contended, concurrent takes wait for the one in flight and share its refusal", async () => {
    const backend = flakyAdapter();
    const adapter = rememberingRefusals(backend);
    const windows: StoreWindow[] = [{ id: "w", limit: 1, windowMs: 30 }];
    expect(await adapter.take("k", windows, "m1", false, call)).toEqual({ ok: true });
    await adapter.take("k", windows, "m2", false, call);
    await sleep(40);
    // The window has room again for one: of four takes at once, one asks and is admitted, the rest ask
    // after it, one at a time, and the first refusal answers the others.
    const asked = backend.calls.length;
    const decisions = await Promise.all(
      ["a", "b", "c", "d"].map((m) => adapter.take("k", windows, m, false, call)),
    );
    expect(decisions.filter((d) => d.ok)).toHaveLength(1);
    expect(backend.calls.length - asked).toBe(2);
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
