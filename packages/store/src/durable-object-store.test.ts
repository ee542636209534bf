import { describe, expect, it } from "vitest";
import { describeSwap } from "../../../testing/store-swap.ts";
import { durableObjectStore, PromoReviewState } from "./cloudflare.js";
import type { DurableObjectNamespaceLike, DurableObjectStateLike } from "./durable-object-types.js";
import type { StoreWindow } from "./window.js";

/**
 * A namespace of {@link PromoReviewState} objects in this process: storage in a Map per object, each
 * object's requests one at a time (as input gates make them). The real runtime is proven in workerd
 * (packages/runtime-proof, durable-objects tests); this checks the commands and the storage.
 */
function localNamespace() {
  const objects = new Map<
    string,
    { object: PromoReviewState; data: Map<string, unknown>; alarm?: number; queue: Promise<unknown> }
  >();
  const namespace: DurableObjectNamespaceLike<string> = {
    idFromName: (name) => name,
    get(id) {
      let entry = objects.get(id);
      if (entry === undefined) {
        const data = new Map<string, unknown>();
        const made: { alarm?: number } = {};
        const state: DurableObjectStateLike = {
          storage: {
            get: async <T>(key: string) => structuredClone(data.get(key)) as T | undefined,
            put: async (key, value) => void data.set(key, structuredClone(value)),
            deleteAll: async () => data.clear(),
            setAlarm: async (at) => {
              made.alarm = at;
            },
            deleteAlarm: async () => void delete made.alarm,
          },
          blockConcurrencyWhile: (callback) => callback(),
        };
        entry = Object.assign(made, {
          object: new PromoReviewState(state),
          data,
          queue: Promise.resolve() as Promise<unknown>,
        });
        objects.set(id, entry);
      }
      const held = entry;
      return {
        fetch: (request: Request) => {
          const answer = held.queue.then(() => held.object.fetch(request));
          held.queue = answer.catch(() => {});
          return answer;
        },
      };
    },
  };
  return { namespace, objects };
}

const WINDOW: StoreWindow = { id: "minute", limit: 3, windowMs: 60_000 };

describe("one Durable Object class serves the budget, the claims and the resume points", () => {
  it("never admits more than the limit, whichever isolate asks; a pause stops every one", async () => {
    const { namespace } = localNamespace();
    const [a, b] = [durableObjectStore(namespace), durableObjectStore(namespace)];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take("key", [WINDOW], `t${i}`)),
    );
    expect(answers.filter((d) => d.ok)).toHaveLength(3);
    await a.settle("key", [WINDOW], "t0");
    await a.pause("other", 5000);
    expect(await b.take("other", [WINDOW])).toMatchObject({ ok: false, paused: true });
  });

  it("claims once across isolates; a release lets the id in again", async () => {
    const { namespace } = localNamespace();
    const [a, b] = [durableObjectStore(namespace), durableObjectStore(namespace)];
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim("msg_1", 60_000)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    await (claims.indexOf(true) % 2 ? a : b).release("msg_1");
    expect(await a.claim("msg_1", 60_000)).toBe(true);
  });

  it("keeps a value for its TTL; deleting it empties the object's storage and its alarm", async () => {
    const { namespace, objects } = localNamespace();
    const store = durableObjectStore(namespace);
    expect(await store.get("f")).toBeUndefined();
    await store.set("f", "record", 60_000);
    expect(await durableObjectStore(namespace).get("f")).toBe("record");
    const object = objects.get("promo-review:upload:f")!;
    expect(object.alarm).toBeGreaterThan(Date.now());
    await store.delete("f");
    expect(object.data.size).toBe(0);
    expect(object.alarm).toBeUndefined();
  });

  it("a claim or take that reaches the object after its deadline changes nothing, and fails", async () => {
    const { namespace, objects } = localNamespace();
    const slow: DurableObjectNamespaceLike<string> = {
      idFromName: namespace.idFromName,
      get: (id) => ({
        fetch: (request) =>
          new Promise((resolve) => setTimeout(resolve, 80)).then(() => namespace.get(id).fetch(request)),
      }),
    };
    const store = durableObjectStore(slow, { timeoutMs: 20 });
    await expect(store.claim("msg_late", 60_000)).rejects.toMatchObject({ code: "REPLAY_STORE_FAILED" });
    await expect(store.take("late", [WINDOW])).rejects.toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(objects.get("promo-review:webhook-id:msg_late")?.data.size ?? 0).toBe(0);
    expect(objects.get("promo-review:rate-budget:late")?.data.size ?? 0).toBe(0);
  });

  it("the alarm deletes what stopped counting, and an unknown command is refused", async () => {
    const { namespace, objects } = localNamespace();
    const store = durableObjectStore(namespace, { waitUntil: () => {} });
    await store.claim("msg_short", 1);
    const object = objects.get("promo-review:webhook-id:msg_short")!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await object.object.alarm();
    expect(object.data.size).toBe(0);
    const refused = await object.object.fetch(
      new Request("https://x.invalid/", { method: "POST", body: '{"op":"nope"}' }),
    );
    expect(refused.status).toBe(400);
    const failing = durableObjectStore({
      idFromName: (n) => n,
      get: () => ({ fetch: async () => new Response("", { status: 500 }) }),
    });
    await expect(failing.get("f")).rejects.toMatchObject({ code: "RESUME_STORE_UNAVAILABLE" });
  });
});

describeSwap("Durable Object", {
  stores: () => {
    const { namespace } = localNamespace();
    return [durableObjectStore(namespace), durableObjectStore(namespace)];
  },
  pass: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms + 30)),
});

describe("an object moved from the previous ReplayStoreObject (renamed_classes) keeps its claim; a budget restarts", () => {
  /** An object as the previous `ReplayStoreObject` left it: its one claim under "claim", its alarm at the expiry. */
  function legacyObject(id: string, expiresAt: number) {
    const { namespace, objects } = localNamespace();
    namespace.get(`promo-review:webhook-id:${id}`);
    const object = objects.get(`promo-review:webhook-id:${id}`)!;
    object.data.set("claim", { token: "claimed-before-the-move", expiresAt });
    object.alarm = expiresAt;
    return { namespace, object };
  }

  it("a delivery claimed before the move is still a replay after it, until its claim expires", async () => {
    const { namespace } = legacyObject("msg_moved", Date.now() + 60_000);
    const store = durableObjectStore(namespace);
    expect(await store.claim("msg_moved", 60_000)).toBe(false);
    const expired = legacyObject("msg_old", Date.now() - 1);
    expect(await durableObjectStore(expired.namespace).claim("msg_old", 60_000)).toBe(true);
  });

  it("the alarm the old class set deletes the old claim once it expired", async () => {
    const { object } = legacyObject("msg_alarm", Date.now() + 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await object.object.alarm();
    expect(object.data.size).toBe(0);
    expect(object.alarm).toBeUndefined();
  });

  it("storage of another shape under that name is not a claim (the previous BudgetObject's admissions restart)", async () => {
    const { namespace, objects } = localNamespace();
    namespace.get("promo-review:webhook-id:msg_other");
    objects.get("promo-review:webhook-id:msg_other")!.data.set("claim", { admissions: [1, 2] });
    expect(await durableObjectStore(namespace).claim("msg_other", 60_000)).toBe(true);
    namespace.get("promo-review:rate-budget:key");
    // What the previous BudgetObject saved ("budget": its key and a snapshot of its windows) is not read.
    objects.get("promo-review:rate-budget:key")!.data.set("budget", { key: "key", snapshot: [] });
    const store = durableObjectStore(namespace);
    const answers = await Promise.all([1, 2, 3, 4].map(() => store.take("key", [WINDOW])));
    expect(answers.filter((d) => d.ok)).toHaveLength(WINDOW.limit);
  });
});
