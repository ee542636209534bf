/**
 * A Worker written as Workers usually are: one client per isolate, made on first use and kept at
 * module scope, shared by every request the isolate serves at once. Not a `run` scenario: the test
 * bundles it as a Worker of its own (`test/module-scope.test.ts`) and fires concurrent requests at it.
 *
 * Routes (POST, JSON answers): `/create` makes the promotion the others read; `/get?id=` reads it
 * (one main-API request, spending the budget); `/channels` reads reference data (cached: concurrent
 * first reads of an empty cache).
 */
import { createClient, type PromoReviewClient } from "@promo-review/sdk";
import { describeError, type SimulatorEndpoints } from "../scenarios/types.ts";

/** The Worker's bindings: the simulator and the budget this isolate keeps (per `windowMs`). */
interface Env {
  SIM: SimulatorEndpoints;
  LIMIT: number;
  WINDOW_MS: number;
  /** This Worker's name, echoed in every answer (the test checks which Worker answered). */
  NAME: string;
}

// Module scope: one client for every request of this isolate, as a Worker would hold it.
let client: PromoReviewClient | undefined;

function clientFor(env: Env): PromoReviewClient {
  client ??= createClient({
    apiKey: env.SIM.apiKey,
    externalUserId: env.SIM.externalUserId,
    baseUrl: env.SIM.baseUrl,
    filesUrl: env.SIM.filesUrl,
    env: {},
    retry: false,
    rateBudget: {
      budgets: [{ name: "main", limit: env.LIMIT, windowMs: env.WINDOW_MS, match: { pathPrefix: "/v1/" } }],
    },
  });
  return client;
}

async function answer(request: Request, env: Env): Promise<unknown> {
  const c = clientFor(env);
  const url = new URL(request.url);
  switch (url.pathname) {
    case "/create": {
      const created = await c.promotions.create({
        promotionName: "Module-scope client",
        productIds: [env.SIM.reference.products[0]!.id],
        channelIds: [env.SIM.reference.channels[0]!.id],
        jurisdictionId: env.SIM.reference.jurisdictions[0]!.id,
        fileFormat: "text",
        content: "<p>Save 5% this spring. Capital at risk.</p>",
      });
      return { promotionId: created.promotionId };
    }
    case "/get": {
      const promotion = await c.promotions.get(url.searchParams.get("id") ?? "");
      return { correlationId: promotion.correlationId };
    }
    case "/channels": {
      const { channels } = await c.reference.channels();
      return { channels: channels.length };
    }
    default:
      throw new Error(`no route ${url.pathname}`);
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      return Response.json({ ok: true, worker: env.NAME, output: await answer(request, env) });
    } catch (error) {
      return Response.json({ ok: false, error: describeError(error) });
    }
  },
};
