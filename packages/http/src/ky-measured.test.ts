/**
 * ky 2.1 measured against the rules this pipeline keeps (issue 27, item 3): each test runs the same
 * exchange through ky (as its README and source say to use it) and through `createHttpClient`, over
 * real HTTP on 127.0.0.1. They assert what ky does today; when a ky release changes one of these, its
 * test fails and the decision in docs/CONTRIBUTING.md ("Why ky is not the transport (measured)") is
 * made again.
 */
import type { ServerResponse } from "node:http";
import { ForeignOriginError, TimeoutError } from "@promo-review/errors";
import ky, { HTTPError, TimeoutError as KyTimeoutError } from "ky";
import { describe, expect, it } from "vitest";
import { type Answer, json, useHostileServers } from "../../../testing/hostile-server.ts";
import { createHttpClient, type RequestBudget } from "./index.js";

const credentials = { apiKey: "sk_test_ky_measure_0123", externalUserId: "user-42" };
const start = useHostileServers();

/** Runs `step` after `ms`, unless the response closed first. */
function later(res: ServerResponse, ms: number, step: () => void): void {
  const timer = setTimeout(step, ms);
  res.on("close", () => clearTimeout(timer));
}

/** Headers after `ms`, the body's first byte at once, its last `ms` later: each half under `ms` + slack. */
const slowHalves =
  (ms: number): Answer =>
  (res) =>
    later(res, ms, () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      later(res, ms, () => res.end('"ok":true}'));
    });

describe("one deadline over the whole exchange", () => {
  it("ky's timeout covers the headers, then starts again for the body: an exchange of 3.2 s passes a 2.4 s timeout", async () => {
    const service = await start();
    // Each half is 1.6 s: 0.8 s inside ky's 2.4 s (headers), 0.8 s past ours (the whole exchange),
    // margins a loaded machine's stalls do not eat.
    service.on(/.*/, slowHalves(1600));
    const viaKy = await ky.get(`${service.url}/v1/x`, { timeout: 2400, retry: 0 }).json();
    expect(viaKy).toEqual({ ok: true });
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 2400, retry: false });
    await expect(client.request("/v1/x")).rejects.toBeInstanceOf(TimeoutError);
  });

  it("ky's totalTimeout, the one deadline it has, also counts the wait for the rate budget", async () => {
    const service = await start();
    service.on(/.*/, json(200, { ok: true }));
    const waitForBudget = () => new Promise((resolve) => setTimeout(resolve, 1200));
    const viaKy = ky
      .get(`${service.url}/v1/x`, {
        totalTimeout: 1000,
        retry: 0,
        hooks: { beforeRequest: [async () => void (await waitForBudget())] },
      })
      .json();
    await expect(viaKy).rejects.toBeInstanceOf(KyTimeoutError);
    expect(service.requests).toHaveLength(0);
    // The pipeline starts the deadline once the budget lets the request go.
    const budget: RequestBudget = {
      async acquire() {
        await waitForBudget();
        return { settle: () => {} };
      },
      learn: async () => {},
    };
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 1000, budget });
    expect((await client.request("/v1/x")).data).toEqual({ ok: true });
  });

  it("a trickling error body: ky gives up reading it at its timeout and throws an HTTPError without the body, not a timeout", async () => {
    const service = await start();
    service.on(/.*/, (res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.flushHeaders();
      const timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const viaKy = await ky
      .get(`${service.url}/v1/x`, { timeout: 500, retry: 0 })
      .json()
      .catch((e: unknown) => e);
    expect(viaKy).toBeInstanceOf(HTTPError);
    expect((viaKy as HTTPError).data).toBeUndefined();
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 500, retry: false });
    await expect(client.request("/v1/x")).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe("the origin check on every redirect hop", () => {
  it("ky lets fetch follow a redirect to another origin: the user header and the POST body reach the stranger", async () => {
    const [service, stranger] = await Promise.all([start(), start()]);
    service.on(/.*/, (res) => {
      res.writeHead(307, { location: `${stranger.url}/v1/promotions` });
      res.end();
    });
    stranger.on(/.*/, json(201, { id: "p" }));
    const headers = { "X-External-User-ID": credentials.externalUserId };
    await ky.post(`${service.url}/v1/promotions`, { json: { name: "x" }, headers, retry: 0 }).json();
    expect(stranger.requests.map((r) => [r.method, r.headers["x-external-user-id"], r.body])).toEqual([
      ["POST", "user-42", '{"name":"x"}'],
    ]);
    const client = createHttpClient({ baseUrl: service.url, ...credentials });
    const refused = client.request("/v1/promotions", { method: "POST", json: { name: "x" } });
    await expect(refused).rejects.toBeInstanceOf(ForeignOriginError);
    expect(stranger.requests).toHaveLength(1);
  });

  it("with redirect: 'manual', a hop an afterResponse hook follows is outside ky's timeout", async () => {
    const service = await start();
    service.on(/GET \/v1\/start/, (res) => {
      res.writeHead(307, { location: "/v1/slow" });
      res.end();
    });
    service.on(/GET \/v1\/slow/, (res) =>
      later(res, 1500, () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
      }),
    );
    const viaKy = await ky
      .get(`${service.url}/v1/start`, {
        redirect: "manual",
        timeout: 1000,
        retry: 0,
        hooks: {
          afterResponse: [
            async ({ request, response }) => {
              const location = response.headers.get("location");
              if (response.status !== 307 || !location) return undefined;
              // The hop is the hook's own fetch: ky's timeout raced only the first one.
              return fetch(new URL(location, request.url));
            },
          ],
        },
      })
      .json();
    expect(viaKy).toEqual({ ok: true });
    const client = createHttpClient({ baseUrl: service.url, ...credentials, timeoutMs: 1000, retry: false });
    await expect(client.request("/v1/start")).rejects.toBeInstanceOf(TimeoutError);
  });
});
