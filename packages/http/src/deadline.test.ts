import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { deadlineSignal } from "./index.js";

// A full garbage collection on demand: what made AbortSignal.any([signal, AbortSignal.timeout(ms)])
// lose its timeout on Node (nodejs/node#57736).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("a deadline aborts at its time or with the caller, and leaves no timer once cleared", () => {
  it("aborts with a TimeoutError once the time has passed, though a full garbage collection ran meanwhile", async () => {
    const limit = deadlineSignal(30, new AbortController().signal);
    setTimeout(gc, 5);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("aborts with the caller's reason when the caller aborts first, and then holds no timer", () => {
    const before = timers();
    const caller = new AbortController();
    const limit = deadlineSignal(60_000, caller.signal);
    expect(timers()).toBe(before + 1);
    caller.abort(new Error("stop"));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as Error).message).toBe("stop");
    expect(timers()).toBe(before);
  });

  it("is aborted at once for a caller's signal that already is", () => {
    const limit = deadlineSignal(60_000, AbortSignal.abort("gone"));
    expect(limit.signal.reason).toBe("gone");
    limit.clear();
  });

  it("clear() stops the timer and the caller's abort no longer reaches it", () => {
    const before = timers();
    const caller = new AbortController();
    const limit = deadlineSignal(60_000, caller.signal);
    limit.clear();
    expect(timers()).toBe(before);
    caller.abort();
    expect(limit.signal.aborted).toBe(false);
  });
});
