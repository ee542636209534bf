/**
 * The Worker of `test/durable-objects.test.ts`, bundled for workerd and run as two Workers (two
 * isolates) bound to the same Durable Object namespaces. Each route does one thing a receiver or an
 * API caller does, with a store made in that request (as workerd requires), and answers JSON.
 */
import { budgetedFetch, createRateBudget } from "@promo-review/rate-budget";
import { storeJournal } from "@promo-review/sdk/cloudflare";
import {
  type DurableObjectNamespaceLike as BudgetNamespace,
  type DurableObjectNamespaceLike,
  durableObjectStore,
  PromoReviewState,
} from "@promo-review/store/cloudflare";
import { createWebhookVerifier } from "@promo-review/webhook-verify";

interface Env {
  REPLAY: DurableObjectNamespaceLike;
  SLOW_REPLAY: DurableObjectNamespaceLike;
  LATE_REPLAY: DurableObjectNamespaceLike;
  BUDGET: BudgetNamespace;
  SLOW_BUDGET: BudgetNamespace;
}

/** What storage holds, read through the runtime's own `list()` (not part of the package's types). */
async function inspect(storage: unknown): Promise<Response> {
  const s = storage as { list(): Promise<Map<string, unknown>>; getAlarm(): Promise<number | null> };
  return Response.json({ keys: [...(await s.list()).keys()], alarm: await s.getAlarm() });
}

/** The one class of the store kit, plus a route that shows its storage (tests only). */
export class InspectableState extends PromoReviewState {
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === "/inspect") return inspect(this.state.storage);
    return super.fetch(request);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An object that answers each request only after 1.5 s: a store slower than any deadline here. */
export class StalledReplayObject extends PromoReviewState {
  override async fetch(request: Request): Promise<Response> {
    await sleep(1500);
    return super.fetch(request);
  }
}

/** An object that records at once but answers only after 1.5 s: a claim made in time, answered too late. */
export class LateReplayObject extends PromoReviewState {
  override async fetch(request: Request): Promise<Response> {
    const response = await super.fetch(request);
    await sleep(1500);
    return response;
  }
}

/** An object that answers each request only after 1.5 s. */
export class StalledBudgetObject extends PromoReviewState {
  override async fetch(request: Request): Promise<Response> {
    await sleep(1500);
    return super.fetch(request);
  }
}

function described(error: unknown): Record<string, unknown> {
  const e = error as { name?: string; code?: string; reason?: string; message?: string };
  return { name: e.name, code: e.code, reason: e.reason, message: e.message };
}

async function answer(work: () => Promise<Record<string, unknown>>): Promise<Response> {
  const started = Date.now();
  try {
    return Response.json({ ok: true, ...(await work()), elapsedMs: Date.now() - started });
  } catch (error) {
    return Response.json({ ok: false, error: described(error), elapsedMs: Date.now() - started });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the test sends each route its own JSON.
type Input = any;

/** Runs `task` `n` times, `concurrency` at a time, and says how long it took. */
async function timed(
  input: { n: number; concurrency: number },
  task: (i: number) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < input.n) await task(next++);
    }),
  );
  return { n: input.n, ms: Date.now() - started };
}

// Made on first use: workerd allows no random values at import time.
let isolate: string | undefined;

interface Context {
  waitUntil(promise: Promise<unknown>): void;
}

const routes: Record<string, (input: Input, env: Env, ctx: Context) => Promise<Record<string, unknown>>> = {
  async isolate() {
    isolate ??= crypto.randomUUID();
    return { isolate };
  },
  async verify(input, env) {
    const verifier = createWebhookVerifier({
      webhookSecret: input.secret,
      store: durableObjectStore(env.REPLAY, { timeoutMs: input.timeoutMs }),
    });
    const event = await verifier.verify({ headers: input.headers, body: input.body });
    return { type: event.type };
  },
  async claim(input, env, ctx) {
    const namespace = { slow: env.SLOW_REPLAY, late: env.LATE_REPLAY }[input.object as string] ?? env.REPLAY;
    const store = durableObjectStore(namespace, {
      timeoutMs: input.timeoutMs,
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
    return { claimed: await store.claim(input.id, input.ttlMs) };
  },
  async release(input, env) {
    await durableObjectStore(env.REPLAY).release(input.id);
    return {};
  },
  async inspectReplay(input, env) {
    const stub = env.REPLAY.get(env.REPLAY.idFromName(`promo-review:webhook-id:${input.id}`));
    return (await stub.fetch(new Request("https://replay-store.invalid/inspect"))).json();
  },
  async inspectBudget(input, env) {
    const stub = env.BUDGET.get(env.BUDGET.idFromName(`promo-review:rate-budget:${input.keyId}`));
    return (await stub.fetch(new Request("https://rate-budget.invalid/inspect"))).json();
  },
  /** One API call through a budget made for this request, sharing the key's object with every isolate. */
  async call(input, env, ctx) {
    const budget = createRateBudget({
      baseUrl: input.baseUrl,
      keyId: input.keyId,
      store: durableObjectStore(env.BUDGET, {
        timeoutMs: 10_000,
        waitUntil: (promise) => ctx.waitUntil(promise),
      }),
      budgets: [
        { name: "shared", limit: input.limit, windowMs: input.windowMs, match: { pathPrefix: "/v1/" } },
      ],
      safetyMarginMs: input.safetyMarginMs,
    });
    const response = await budgetedFetch(budget)(`${input.baseUrl}/v1/channels`, { headers: input.headers });
    await response.body?.cancel();
    return { status: response.status };
  },
  /** The benchmark: `n` claims of fresh ids, `concurrency` at a time, timed inside workerd. */
  async benchClaims(input, env) {
    const store = durableObjectStore(env.REPLAY, { timeoutMs: 30_000 });
    const prefix = crypto.randomUUID();
    return timed(input, (i) => store.claim(`${prefix}-${i}`, 60_000));
  },
  /** The benchmark: `n` decisions on one key (a limit never reached), `concurrency` at a time. */
  async benchTakes(input, env) {
    const store = durableObjectStore(env.BUDGET, { timeoutMs: 30_000 });
    const keyId = crypto.randomUUID();
    const windows = [{ id: "w", rule: "w", limit: 1_000_000, windowMs: 60_000 }];
    return timed(input, async () => store.take(keyId, windows));
  },
  async take(input, env) {
    const store = durableObjectStore(input.slow ? env.SLOW_BUDGET : env.BUDGET, {
      timeoutMs: input.timeoutMs,
      whenUnavailable: input.whenUnavailable,
    });
    const windows = [{ id: "w", rule: "w", limit: input.limit, windowMs: input.windowMs }];
    return { decision: await store.take(input.keyId, windows) };
  },
  async pause(input, env) {
    await durableObjectStore(env.BUDGET).pause(input.keyId, input.ms);
    return {};
  },
  /** `n` intents appended one by one to the journal `name`, keyed `<writer>-<i>`. */
  async journalAppend(input, env) {
    const journal = storeJournal(durableObjectStore(env.REPLAY, { timeoutMs: 10_000 }), {
      name: input.name,
      chunkBytes: 400,
    });
    for (let i = 0; i < input.n; i++) {
      await journal.append({ type: "intent", key: `${input.writer}-${i}`, step: "create", at: i });
    }
    await journal.close();
    return {};
  },
  async journalRead(input, env) {
    const journal = storeJournal(durableObjectStore(env.REPLAY, { timeoutMs: 10_000 }), { name: input.name });
    const records = [];
    for await (const record of journal.read()) records.push(record);
    return { records };
  },
  /** Takes the journal's lease and keeps it (its renewals end with the request; it expires on its own). */
  async journalLease(input, env) {
    const journal = storeJournal(durableObjectStore(env.REPLAY, { timeoutMs: 10_000 }), {
      name: input.name,
      leaseTtlMs: 60_000,
    });
    const lease = await journal.lease({ owner: input.owner });
    return { owner: lease.owner };
  },
};

export default {
  async fetch(request: Request, env: Env, ctx: Context): Promise<Response> {
    const route = routes[new URL(request.url).pathname.slice(1)];
    if (route === undefined) return new Response("no such route", { status: 404 });
    const input = await request.json();
    return answer(() => route(input, env, ctx));
  },
};
