import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { holdFirstAnswer } from "../../../testing/held-answer.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, requestsTo } from "../test/support/sim.js";
import { type CachedReference, memoryReferenceStore, type ReferenceStore } from "./reference-cache.js";

const sim = useSimulator(startSimulator, { mainApiLimit: 100_000, seed: 7 });

const reads = (path: string) => requestsTo(sim(), "GET", path).length;

describe("reference data: the four lists, typed, under their own names", () => {
  it("lists channels, jurisdictions, products and target markets", async () => {
    const { reference } = clientFor(sim());
    const channels = await reference.channels();
    expect(channels.channels.map((c) => c.id)).toEqual(sim().reference.channels.map((c) => c.id));
    expect(channels.fromCache).toBe(false);
    expect(channels.correlationId).toBe(requestsTo(sim(), "GET", "/v1/channels")[0]!.correlationId);
    const jurisdictions = await reference.jurisdictions();
    expect(jurisdictions.jurisdictions[0]).toMatchObject({
      countryCode: sim().reference.jurisdictions[0]!.countryCode,
    });
    // Only `id` is relied on: the records' other fields are not shown (docs/gaps.md row 4).
    const ids = (list: { id: string }[]) => list.map((x) => x.id);
    expect(ids((await reference.products()).products)).toEqual(ids(sim().reference.products));
    expect(ids((await reference.targetMarkets()).targetMarkets)).toEqual(ids(sim().reference.targetMarkets));
  });
});

describe("reference data is cached for a day: one request per list per day", () => {
  it("serves a day's reads from one request, concurrent reads included", async () => {
    let now = 1_000_000;
    const { reference } = clientFor(sim(), { referenceCache: { now: () => now } });
    await Promise.all([reference.channels(), reference.channels(), reference.channels()]);
    now += 86_400_000 - 1;
    const cached = await reference.channels();
    expect(cached.fromCache).toBe(true);
    expect(reads("/v1/channels")).toBe(1);
    now += 1;
    expect((await reference.channels()).fromCache).toBe(false);
    expect(reads("/v1/channels")).toBe(2);
  });
  it("takes a configured lifetime", async () => {
    let now = 0;
    const { reference } = clientFor(sim(), { referenceCache: { ttlMs: 1000, now: () => now } });
    await reference.jurisdictions();
    now = 999;
    await reference.jurisdictions();
    now = 1000;
    await reference.jurisdictions();
    expect(reads("/v1/jurisdictions")).toBe(2);
  });
  it("refreshes on demand, all lists or the named ones", async () => {
    const { reference } = clientFor(sim());
    await reference.products();
    await reference.refresh(["products"]);
    expect(reads("/v1/products")).toBe(2);
    expect((await reference.products()).fromCache).toBe(true);
    await reference.refresh();
    for (const path of ["/v1/channels", "/v1/jurisdictions", "/v1/target-markets"])
      expect(reads(path)).toBe(1);
    expect(reads("/v1/products")).toBe(3);
  });
});

describe("a read never waits on another read's request (one client per isolate in Workers)", () => {
  // The first request's answer is held until the test releases it, so "while it is in flight" is an
  // event the test waits for, never a delay it hopes outlasts another.
  it("a read that found the list being fetched is not failed by that read's abort: it fetches itself", async () => {
    const held = holdFirstAnswer("/v1/channels");
    const { reference } = clientFor(sim(), { fetch: held.fetch });
    const leader = new AbortController();
    const first = reference.channels({ signal: leader.signal });
    const second = reference.channels();
    await held.inFlight;
    leader.abort(new Error("the first request's client went away"));
    await expect(first).rejects.toMatchObject({ name: "AbortError" });
    const list = await second;
    held.release();
    expect(list.channels.map((c) => c.id)).toEqual(sim().reference.channels.map((c) => c.id));
    expect(list.fromCache).toBe(false);
    expect(reads("/v1/channels")).toBe(2);
  });

  it("a read waiting for another read's request stops at its own signal, and that request goes on", async () => {
    const held = holdFirstAnswer("/v1/channels");
    const { reference } = clientFor(sim(), { fetch: held.fetch });
    const follower = new AbortController();
    const first = reference.channels();
    const second = reference.channels({ signal: follower.signal });
    await held.inFlight;
    follower.abort(new Error("the second read's caller went away"));
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    held.release();
    expect((await first).fromCache).toBe(false);
    expect(reads("/v1/channels")).toBe(1);
  });
});

describe("reference data: a pluggable store, shared by clients, keyed by base URL", () => {
  it("lets a second client use what the first fetched", async () => {
    const map = new Map<string, CachedReference>();
    const store: ReferenceStore = {
      get: async (key) => map.get(key),
      set: async (key, value) => {
        map.set(key, structuredClone(value));
      },
      delete: async (key) => {
        map.delete(key);
      },
    };
    await clientFor(sim(), { referenceCache: { store } }).reference.channels();
    const second = await clientFor(sim(), { referenceCache: { store } }).reference.channels();
    expect(second.fromCache).toBe(true);
    expect(reads("/v1/channels")).toBe(1);
    expect([...map.keys()]).toEqual([`promo-review:reference:${sim().baseUrl}:channels`]);
  });
  it("reads a list at a configured path, found as the only array in the body", async () => {
    const store = memoryReferenceStore();
    const fetchOther = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      return url.endsWith("/v2/markets")
        ? new Response(JSON.stringify({ items: [{ id: "m1" }], correlationId: "c-1" }), {
            headers: { "content-type": "application/json" },
          })
        : fetch(input, init);
    };
    const { reference } = clientFor(sim(), {
      fetch: fetchOther as typeof fetch,
      referenceCache: { store, paths: { targetMarkets: "/v2/markets" } },
    });
    expect((await reference.targetMarkets()).targetMarkets).toEqual([{ id: "m1" }]);
  });
});
