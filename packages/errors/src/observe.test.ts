/**
 * The observation seam's one function, `observed`: an operation's handle reaches its work and its
 * end, which carries the outcome's correlation id, or the error; no observer, or one that follows no
 * operations, just runs the work.
 */
import { describe, expect, it } from "vitest";
import { RateLimitError } from "./index.js";
import { type ObservedOperation, type Observer, observed } from "./observe.js";

const source = { name: "@promo-review/test", version: "1.0.0" };
const start = { name: "promotions.create", source, redact: (text: string) => text };

function recording() {
  const handle = { id: 1 } as unknown as ObservedOperation;
  const ends: unknown[] = [];
  const observer: Observer = {
    operationStarted: () => handle,
    operationEnded: (operation, end) => void ends.push({ operation, ...end }),
  };
  return { handle, ends, observer };
}

describe("an operation's handle is its work's parent, and its end says how it went", () => {
  it("a result with a correlation id: the end carries it, no error", async () => {
    const { handle, ends, observer } = recording();
    const parents: unknown[] = [];
    await observed(observer, start, async (operation) => {
      parents.push(operation);
      return { correlationId: "c-1" };
    });
    expect(parents).toEqual([handle]);
    expect(ends).toEqual([{ operation: handle, correlationId: "c-1" }]);
  });

  it("a failure: the end carries the error and its correlation id, and the error is rethrown", async () => {
    const { handle, ends, observer } = recording();
    const error = new RateLimitError({ code: "RATE_LIMITED", message: "slow down", correlationId: "c-2" });
    await expect(observed(observer, start, () => Promise.reject(error))).rejects.toBe(error);
    expect(ends).toEqual([{ operation: handle, correlationId: "c-2", error }]);
  });

  it("what the operation learnt from its result (the ids it names) is on its end; nothing after a failure", async () => {
    const { handle, ends, observer } = recording();
    const learnt: unknown[] = [];
    const learn = (result: { promotionId: string }) => {
      learnt.push(result);
      return { promotionId: result.promotionId };
    };
    await observed(observer, start, async () => ({ promotionId: "p-1", correlationId: "c-3" }), learn);
    expect(ends).toEqual([{ operation: handle, correlationId: "c-3", details: { promotionId: "p-1" } }]);
    const error = new RateLimitError({ code: "RATE_LIMITED", message: "slow down" });
    await expect(observed(observer, start, () => Promise.reject(error), learn)).rejects.toBe(error);
    expect(ends[1]).toEqual({ operation: handle, error });
    expect(learnt).toHaveLength(1);
  });

  it("a result without a correlation id: the end carries none", async () => {
    const { ends, observer } = recording();
    await observed(observer, start, async () => 42);
    expect(ends).toHaveLength(1);
    expect(ends[0]).not.toHaveProperty("correlationId");
  });
});

describe("without an observer of operations, the work just runs", () => {
  it("no observer, or one without `operationStarted`: the work gets no parent", async () => {
    expect(await observed(undefined, start, async (operation) => operation)).toBeUndefined();
    expect(await observed({}, start, async (operation) => operation)).toBeUndefined();
  });

  it("what an operation learns from its result is not even read without one", async () => {
    let read = 0;
    await observed(
      undefined,
      start,
      async () => 1,
      () => ({ count: ++read }),
    );
    expect(read).toBe(0);
  });
});
