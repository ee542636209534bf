/**
 * The Worker of `test/facade-store.test.ts`, bundled for workerd and run as two Workers (two isolates)
 * bound to one `PromoReviewState` namespace: `createClient({ store: durableObjectStore(env.STATE) })`,
 * made in each request (as workerd requires), does one step of scenarios/client-steps.ts.
 */
import {
  type DurableObjectNamespaceLike,
  durableObjectStore,
  PromoReviewState,
} from "@promo-review/sdk/cloudflare";
import { type ClientStep, clientOn, clientStep } from "../scenarios/client-steps.ts";
import { runtimeFingerprint, type SimulatorEndpoints } from "../scenarios/types.ts";

export { PromoReviewState };

interface Env {
  STATE: DurableObjectNamespaceLike;
}

/** Each isolate's own memory: the test checks that the two Workers do not share it (made in a request: workerd generates no random value at start-up). */
let isolate: string | undefined;

export default {
  async fetch(
    request: Request,
    env: Env,
    ctx: { waitUntil(promise: Promise<unknown>): void },
  ): Promise<Response> {
    const { sim, step, prefix } = (await request.json()) as {
      sim: SimulatorEndpoints;
      step: ClientStep | { step: "isolate" };
      prefix: string;
    };
    isolate ??= crypto.randomUUID();
    if (step.step === "isolate") return Response.json({ isolate });
    const client = clientOn(
      sim,
      // Each test its own names, so that one test's spent budget is not the next one's; `waitUntil`
      // keeps a settle or a pause alive after the answer, as a Worker in production passes it.
      durableObjectStore(env.STATE, {
        prefixes: { window: `${prefix}w:`, claim: `${prefix}c:`, value: `${prefix}v:` },
        waitUntil: (promise) => ctx.waitUntil(promise),
        // A generous deadline: this proves sharing on a loaded machine; the outage suites prove deadlines.
        timeoutMs: 20_000,
      }),
    );
    try {
      return Response.json({
        runtime: runtimeFingerprint(),
        ...(await clientStep(client, sim.baseUrl, step)),
      });
    } catch (error) {
      const e = error as { name?: string; message?: string; code?: string };
      return Response.json({ thrown: { name: e.name, message: e.message, code: e.code } }, { status: 500 });
    } finally {
      client.budget?.close();
    }
  },
};
