import { describe, expect, it } from "vitest";
import { retryCommits } from "./retry.js";

describe("the commit loop retries a conflict, never past its deadline or its attempts", () => {
  it("answers the first attempt that is done", async () => {
    const seen: number[] = [];
    const value = await retryCommits(
      async (n) => {
        seen.push(n);
        return n === 2 ? { done: "won" } : undefined;
      },
      { signal: new AbortController().signal, where: "KV" },
    );
    expect(value).toBe("won");
    expect(seen).toEqual([0, 1, 2]);
  });

  it("gives up after maxAttempts conflicts in a row", async () => {
    let attempts = 0;
    const failure = retryCommits(
      async () => {
        attempts++;
        return undefined;
      },
      { signal: new AbortController().signal, where: "KV", maxAttempts: 3, maxPauseMs: 1 },
    );
    await expect(failure).rejects.toThrow("KV: 3 attempts in a row met a concurrent change of the key");
    expect(attempts).toBe(3);
  });

  it("stops once the signal fires, even mid-pause", async () => {
    const controller = new AbortController();
    const failure = retryCommits(
      async () => {
        controller.abort();
        return undefined;
      },
      { signal: controller.signal, where: "KV", maxPauseMs: 60_000 },
    );
    await expect(failure).rejects.toThrow("KV: out of time");
  });

  it("maxAttempts must be a positive integer", async () => {
    await expect(
      retryCommits(async () => ({ done: 1 }), {
        signal: new AbortController().signal,
        where: "KV",
        maxAttempts: 0,
      }),
    ).rejects.toThrow(RangeError);
  });
});
