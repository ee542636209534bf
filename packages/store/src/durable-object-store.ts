import type { StoreAdapter } from "./adapter.js";
import type { DurableObjectNamespaceLike } from "./durable-object-types.js";
import { type SharedStoreOptions, sharedStore } from "./shared-store.js";
import type { StateCommand } from "./state-object.js";
import type { Store } from "./store.js";
import type { Decision } from "./window.js";

/** Prefixes of the object names, one per kind of state. */
export interface DurableObjectStorePrefixes {
  /** Budget keys (default `"promo-review:rate-budget:"`). */
  window?: string | undefined;
  /** Webhook ids (default `"promo-review:webhook-id:"`). */
  claim?: string | undefined;
  /** Upload resume points (default `"promo-review:upload:"`). */
  value?: string | undefined;
}

/** Options of {@link durableObjectStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}. */
export interface DurableObjectStoreOptions extends SharedStoreOptions {
  /** Prefixes of every object name, to share a namespace safely. */
  prefixes?: DurableObjectStorePrefixes | undefined;
  /**
   * The request's `ctx.waitUntil`. A 429's pause, a settle and the undo of a late claim are not
   * waited for; in Workers the runtime may cancel them once the Worker has answered, and the other
   * isolates would never see them. With `waitUntil` each call is kept alive.
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

// The URL only carries the command's name into the object: a stub's fetch never leaves Cloudflare.
const ORIGIN = "https://promo-review-state.invalid/";

/** The adapter: one request to the key's {@link PromoReviewState} per call; the stub is made per call. */
export function durableObjectAdapter(
  namespace: DurableObjectNamespaceLike,
  options: Pick<DurableObjectStoreOptions, "prefixes" | "waitUntil"> = {},
): StoreAdapter {
  const prefix = {
    window: options.prefixes?.window ?? "promo-review:rate-budget:",
    claim: options.prefixes?.claim ?? "promo-review:webhook-id:",
    value: options.prefixes?.value ?? "promo-review:upload:",
  };
  async function ask(
    name: string,
    command: StateCommand,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const stub = namespace.get(namespace.idFromName(name));
    const response = await stub.fetch(
      new Request(ORIGIN + command.op, { method: "POST", body: JSON.stringify(command), signal }),
    );
    if (!response.ok) throw new Error(`the Durable Object answered HTTP ${response.status} to ${command.op}`);
    const answer = (await response.json()) as Record<string, unknown>;
    // Only when this isolate's clock runs behind the object's: the object changed nothing.
    if (answer["late"] === true)
      throw new Error(`the Durable Object received ${command.op} after its deadline`);
    return answer;
  }
  function send(name: string, command: StateCommand, signal: AbortSignal): Promise<Record<string, unknown>> {
    const sent = ask(name, command, signal);
    options.waitUntil?.(sent.catch(() => {}));
    return sent;
  }
  return {
    where: "Durable Object",
    take: async (key, windows, member, ticketed, { signal, notAfter }) =>
      (await send(
        prefix.window + key,
        { op: "take", windows: [...windows], member, ticketed, notAfter },
        signal,
      )) as Decision,
    settle: async (key, windows, ticket, { signal }) => {
      await send(prefix.window + key, { op: "settle", windows: [...windows], ticket }, signal);
    },
    pause: async (key, ms, { signal }) => {
      await send(prefix.window + key, { op: "pause", ms }, signal);
    },
    claim: async (key, token, ttlMs, { signal, notAfter }) =>
      (await send(prefix.claim + key, { op: "claim", token, ttlMs, notAfter }, signal))["claimed"] === true,
    unclaim: async (key, token, { signal }) => {
      await send(prefix.claim + key, { op: "unclaim", token }, signal);
    },
    get: async (key, { signal }) => {
      const { value } = await send(prefix.value + key, { op: "get" }, signal);
      return typeof value === "string" ? value : undefined;
    },
    set: async (key, value, ttlMs, { signal }) => {
      await send(prefix.value + key, { op: "set", value, ttlMs }, signal);
    },
    delete: async (key, { signal }) => {
      await send(prefix.value + key, { op: "delete" }, signal);
    },
    swap: async (key, expected, value, ttlMs, { signal, notAfter }) => {
      const answer = await send(prefix.value + key, { op: "swap", expected, value, ttlMs, notAfter }, signal);
      return typeof answer["value"] === "string" ? answer["value"] : undefined;
    },
  };
}

/**
 * The budget, the webhook claims and the upload resume points on Durable Objects, one
 * {@link PromoReviewState} per key: one Durable Object request per call, each with a deadline
 * (`timeoutMs`); a late take or claim is refused by the object itself (`notAfter`). A store that does
 * not answer fails closed, or with `whenUnavailable: "open"` falls back to this isolate's memory.
 *
 * Make it where the namespace binding is (inside `fetch(request, env)`): the stub is made per call, in
 * the request that uses it, as workerd requires.
 * @param namespace the binding of the {@link PromoReviewState} class (`env.PROMO_REVIEW_STATE`).
 */
export function durableObjectStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectStoreOptions = {},
): Store {
  return sharedStore(durableObjectAdapter(namespace, options), options);
}
