import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { denoCheck, kvFolder, runDeno } from "../../../testing/deno.ts";
import { MemoryDenoKv } from "../../../testing/memory-deno-kv.ts";
import { checkReplayProperty } from "../test/support/replay-property.js";
import { type DenoKvLike, denoKvReplayStore } from "./deno.js";

const PACKAGE_DIR = join(import.meta.dirname, "..");
const folder = kvFolder();
afterAll(() => folder.remove());

describe("Deno KV replay store in the real deno, on a local KV file", () => {
  it("lets exactly one claim of each id win among four deno processes (and concurrent calls in each) sharing one KV file", async () => {
    const file = folder.file("race");
    const runs = (await Promise.all(
      [1, 2, 3, 4].map(() =>
        runDeno({
          packageDir: PACKAGE_DIR,
          script: "deno/replay-race.ts",
          args: [file, "40", "3"],
          dir: folder.dir,
          timeoutMs: 60_000,
        }),
      ),
    )) as { won: string[]; failed: string[] }[];
    // Two processes writing one SQLite file may meet "database is locked": the store retries within
    // its deadline, so no call fails closed here and every id is won exactly once, by one process.
    expect(runs.flatMap((run) => run.failed)).toEqual([]);
    const won = runs.flatMap((run) => run.won).sort();
    expect(won).toEqual(Array.from({ length: 40 }, (_, i) => `msg_race_${i}`).sort());
  });

  it("keeps every rule on a real KV file: expired entries still present are free, release, take-over, verifiers, and the property", async () => {
    const seed = fc.readConfigureGlobal().seed;
    const observed = await runDeno({
      packageDir: PACKAGE_DIR,
      script: "deno/replay-rules.ts",
      args: [folder.dir, "30", ...(seed === undefined ? [] : [String(seed)])],
      dir: folder.dir,
      timeoutMs: 60_000,
    });
    expect(observed).toEqual({
      first: true,
      again: false,
      // Deno's local KV keeps an entry past its expireIn (it is only the earliest deletion time) ...
      expiredEntryStillInKv: true,
      // ... and the store counts it free all the same.
      afterExpiry: true,
      whileHeld: false,
      entryAfterRelease: null,
      afterRelease: true,
      firstClaims: true,
      secondTakesOver: true,
      // The first receiver's release left the second's claim in place.
      takenOverClaimKept: false,
      verifierOutcomes: expect.arrayContaining(["verified", "replayed"]),
      defaultKey: ["promo-review", "webhook-id", "msg_deno_1"],
      propertyRuns: 30,
    });
  });
});

describe("Deno KV replay store: the same property in Node, over an in-memory KV stand-in", () => {
  it("answers every sequence of claims, races, releases and clock jumps as the rule says", async () => {
    await checkReplayProperty({
      numRuns: 150,
      openKv: async () => ({ kv: new MemoryDenoKv(), close: () => {} }),
    });
  });
});

describe("Deno KV replay store: an entry the store did not write counts as taken", () => {
  it("refuses to claim over a value that is not a claim", async () => {
    const kv = new MemoryDenoKv();
    await kv.atomic().set(["promo-review", "webhook-id", "msg_x"], "something else").commit();
    const store = denoKvReplayStore(kv);
    expect(await store.claim("msg_x", 60_000)).toBe(false);
  });
});

describe("Deno KV replay store: every call has a deadline and fails closed", () => {
  it("refuses a claim with REPLAY_STORE_FAILED at the deadline, then removes the late claim once it lands", async () => {
    const kv = new MemoryDenoKv();
    kv.delay = 300;
    const store = denoKvReplayStore(kv, { timeoutMs: 50 });
    const error = await store.claim("msg_slow", 60_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "REPLAY_STORE_FAILED", retryable: true });
    expect((error as Error).message).toContain(
      "The claim of msg_slow (Deno KV) is unreachable (an error, or no answer within 50 ms) and the store fails closed; the delivery was not processed",
    );
    // The commit lands after the deadline; the undo follows it, so the sender's retry is processed.
    await expect.poll(() => kv.size, { timeout: 5_000 }).toBe(1);
    await expect.poll(() => kv.size, { timeout: 5_000 }).toBe(0);
    kv.delay = 0;
    // The key is known down until the probe sent at the failure is answered; then the retry is taken.
    await expect
      .poll(() => store.claim("msg_slow", 60_000).catch(() => "refused"), { timeout: 5_000 })
      .toBe(true);
  });

  it("refuses a claim and a release with REPLAY_STORE_FAILED when KV keeps failing", async () => {
    const kv = new MemoryDenoKv();
    kv.failing = new Error("KV is down");
    const store = denoKvReplayStore(kv, { timeoutMs: 100 });
    await expect(store.claim("msg_down", 60_000)).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });
    await expect(store.release("msg_down")).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });
  });

  it("retries a commit that threw, and counts it won when it had landed", async () => {
    const kv = new MemoryDenoKv();
    let throws = 1;
    // A commit that reaches KV but whose answer is lost: the retry must read its own claim back.
    const flaky: DenoKvLike = {
      get: (key) => kv.get(key),
      atomic: () => {
        const op = kv.atomic();
        const commit = op.commit;
        op.commit = async () => {
          const result = await commit();
          if (throws-- > 0) throw new Error("connection reset");
          return result;
        };
        return op;
      },
    };
    const store = denoKvReplayStore(flaky, { timeoutMs: 2_000 });
    expect(await store.claim("msg_lost_answer", 60_000)).toBe(true);
    expect(await store.claim("msg_lost_answer", 60_000)).toBe(false);
  });

  it("refuses a deadline that is not a positive number of milliseconds a timer can hold", () => {
    for (const timeoutMs of [0, -1, Number.NaN, 2 ** 31, Number.POSITIVE_INFINITY]) {
      expect(() => denoKvReplayStore(new MemoryDenoKv(), { timeoutMs })).toThrow(RangeError);
    }
  });
});

describe("Deno KV replay store: typed by shape, and a real Deno.Kv fits", () => {
  it("passes deno check against Deno's own declarations with a Deno.Kv and every kind of key part", async () => {
    await denoCheck({
      packageDir: PACKAGE_DIR,
      script: "deno/types-fit.ts",
      dir: folder.dir,
      timeoutMs: 60_000,
    });
  });
});
