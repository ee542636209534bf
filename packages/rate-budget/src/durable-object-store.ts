import type { BudgetCommand } from "./budget-object.js";
import type { DurableObjectNamespaceLike } from "./durable-object-types.js";
import { type RemoteBudget, SharedStore, type SharedStoreOptions } from "./shared-store.js";
import type { BudgetStore, Decision } from "./store.js";

/** Options of {@link durableObjectBudgetStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}. */
export interface DurableObjectBudgetStoreOptions extends SharedStoreOptions {
  /** Prefix of every object name (default `"promo-review:rate-budget:"`), to share a namespace safely. */
  prefix?: string | undefined;
  /**
   * The request's `ctx.waitUntil`. The budget records a 429's pause and settles tickets without
   * waiting for the store; in Workers the runtime may cancel those calls once the Worker has answered,
   * and the other isolates would then never see the pause. With `waitUntil` each call is kept alive.
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

// The URL only carries the command's name into the object: a stub's fetch never leaves Cloudflare.
const ORIGIN = "https://rate-budget.invalid/";

/** Asks the key's {@link BudgetObject}; the stub is made per call, in the caller's own request. */
function durableObjectBudget(
  namespace: DurableObjectNamespaceLike,
  prefix: string,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): RemoteBudget {
  function send(command: BudgetCommand, signal: AbortSignal): Promise<unknown> {
    const sent = ask(command, signal);
    waitUntil?.(sent.catch(() => {}));
    return sent;
  }
  async function ask(command: BudgetCommand, signal: AbortSignal): Promise<unknown> {
    const stub = namespace.get(namespace.idFromName(prefix + command.key));
    const response = await stub.fetch(
      new Request(ORIGIN + command.op, { method: "POST", body: JSON.stringify(command), signal }),
    );
    if (!response.ok) throw new Error(`the budget Durable Object answered HTTP ${response.status}`);
    return response.json();
  }
  return {
    where: "Durable Object",
    async take(key, windows, member, ticketed, signal) {
      const command: BudgetCommand = { op: "take", key, windows: [...windows] };
      if (ticketed) command.ticket = member;
      return (await send(command, signal)) as Decision;
    },
    async settle(key, windows, ticket, signal) {
      await send({ op: "settle", key, windows: [...windows], ticket }, signal);
    },
    async pause(key, ms, signal) {
      await send({ op: "pause", key, ms }, signal);
    },
  };
}

/**
 * A {@link BudgetStore} on Durable Objects ({@link BudgetObject}): one object per key id decides
 * every admission of that key for every isolate, with the exact sliding windows of the memory store;
 * tickets are settled in it, and a 429's pause recorded in it stops every isolate. One Durable Object
 * request per decision (and per settle and pause), each with a deadline (`timeoutMs`); a store that
 * does not answer fails closed with `BUDGET_STORE_UNAVAILABLE`, or with `whenUnavailable: "open"`
 * falls back to this isolate's own memory, as the Redis store does.
 *
 * Make it where the namespace binding is (inside `fetch(request, env)`).
 * @param namespace the binding of the {@link BudgetObject} class (`env.RATE_BUDGET`).
 */
export function durableObjectBudgetStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectBudgetStoreOptions = {},
): BudgetStore {
  return new SharedStore(
    durableObjectBudget(namespace, options.prefix ?? "promo-review:rate-budget:", options.waitUntil),
    options,
  );
}
