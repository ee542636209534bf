/**
 * The rules of `Store.swap` (the compare-and-set of a value), one suite for every backend: each
 * backend's test file calls {@link describeSwap} with two stores sharing its state (two processes,
 * two isolates) and a way to let time pass beyond a TTL.
 */
import { describe, expect, it } from "vitest";

/** The part of a `Store` the rules use (typed here, so that every package's tests can use it). */
export interface Store {
  get(key: string): Promise<string | undefined>;
  swap?(key: string, expected: string | undefined, value: string | undefined, ttlMs: number): Promise<string | undefined>;
}

/** What a backend's suite gives the rules. */
export interface SwapBackend {
  /** Two stores sharing one state, with keys of their own (fresh per call). */
  stores(): [Store, Store] | Promise<[Store, Store]>;
  /** Lets more than `ms` pass on the clock the backend judges expiry by. */
  pass(ms: number): Promise<void>;
}

/** The swap rules, as one `describe` per rule. */
export function describeSwap(name: string, backend: SwapBackend): void {
  describe(`${name}: swap, the compare-and-set of a value`, () => {
    describe("sets only from the value expected, and answers the value held before", () => {
      it("from nothing, from a value, to nothing; a read changes nothing", async () => {
        const [a, b] = await backend.stores();
        expect(await a.swap!("k", undefined, undefined, 60_000)).toBeUndefined();
        expect(await b.get("k")).toBeUndefined();
        expect(await a.swap!("k", undefined, "one", 60_000)).toBeUndefined();
        expect(await b.swap!("k", undefined, "two", 60_000)).toBe("one");
        expect(await b.swap!("k", "zero", "two", 60_000)).toBe("one");
        expect(await b.swap!("k", undefined, undefined, 60_000)).toBe("one");
        expect(await b.swap!("k", "one", "", 60_000)).toBe("one");
        // The empty string is a value, not nothing.
        expect(await a.swap!("k", undefined, "three", 60_000)).toBe("");
        expect(await a.get("k")).toBe("");
        expect(await a.swap!("k", "", undefined, 60_000)).toBe("");
        expect(await b.get("k")).toBeUndefined();
      });
    });

    describe("of concurrent swaps from one value, exactly one wins", () => {
      it("across two stores on one state", async () => {
        const [a, b] = await backend.stores();
        await a.swap!("race", undefined, "0", 60_000);
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).swap!("race", "0", `v${i}`, 60_000)),
        );
        const winners = answers.flatMap((held, i) => (held === "0" ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(await a.get("race")).toBe(`v${winners[0]}`);
      });
    });

    describe("a value past its TTL counts as nothing", () => {
      it("a swap from nothing takes an expired value's place", async () => {
        const [a, b] = await backend.stores();
        await a.swap!("ttl", undefined, "old", 50);
        await backend.pass(50);
        expect(await b.swap!("ttl", "old", "stale", 60_000)).toBeUndefined();
        expect(await b.swap!("ttl", undefined, "new", 60_000)).toBeUndefined();
        expect(await a.get("ttl")).toBe("new");
      });
    });
  });
}
