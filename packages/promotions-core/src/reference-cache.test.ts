import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
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

/**
 * A `fetch` that holds the answer of the first channels request until the test releases it (the
 * request itself reached the simulator, which logged it): "in flight" is a state the test makes and
 * waits for, not a delay it hopes is long enough. Like the platform's fetch, a held request rejects
 * with its signal's reason when that signal aborts.
 */
function holdingFirstChannelsRead() {
  let arrived!: () => void;
  let release!: () => void;
  const inFlight = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const first = !held && String(input instanceof Request ? input.url : input).endsWith("/v1/channels");
    if (first) held = true;
    const response = await globalThis.fetch(input, init);
    if (!first) return response;
    arrived();
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      void released.then(resolve);
    });
    return response;
  };
  return { fetch, inFlight, release };
}

describe("a read never waits on another read's request (one client per isolate in Workers)", () => {
  it("a read that found the list being fetched is not failed by that read's abort: it fetches itself", async () => {
    const gate = holdingFirstChannelsRead();
    const { reference } = clientFor(sim(), { fetch: gate.fetch });
    const leader = new AbortController();
    const first = reference.channels({ signal: leader.signal });
    const second = reference.channels();
    await gate.inFlight;
    leader.abort(new Error("the first request's client went away"));
    await expect(first).rejects.toMatchObject({ name: "AbortError" });
    const list = await second;
    expect(list.channels.map((c) => c.id)).toEqual(sim().reference.channels.map((c) => c.id));
    expect(list.fromCache).toBe(false);
    expect(reads("/v1/channels")).toBe(2);
  });

  it("a read waiting for another read's request stops at its own signal, and that request goes on", async () => {
    const gate = holdingFirstChannelsRead();
    const { reference } = clientFor(sim(), { fetch: gate.fetch });
    const first = reference.channels();
    const waiting = new AbortController();
    const second = reference.channels({ signal: waiting.signal });
    await gate.inFlight;
    waiting.abort(new Error("the second request's client went away"));
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    gate.release();
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
