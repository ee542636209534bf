/**
 * One client per isolate, at module scope, as Workers are written, serving many requests at once in
 * workerd (miniflare). workerd cancels a request that waits on a promise only another request's I/O
 * or timer settles ("the Workers runtime canceled this request because it detected that your
 * Worker's code had hung"), so every waiting request must be woken by its own timer or I/O: one
 * waiting for the rate budget, one reading reference data another request is already fetching.
 */
import type { Simulator } from "@promo-review/simulator";
import { startSimulator } from "@promo-review/simulator";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
// The rate budget's own helper for admission times, not a copy of it.
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { bundleWorker, PACKAGE_DIR } from "./harness/bundle.ts";
import { endpointsOf } from "./harness/simulator.ts";

/** The server's limit, shared by two Workers (two isolates), each keeping half of it. */
const SERVER_LIMIT = 10;
const WINDOW_MS = 1000;
const PER_WORKER = SERVER_LIMIT / 2;
const CONCURRENT = 30;
/** Generous for a loaded two-core machine: 30 requests at 5 a second take about 7 s. */
const DEADLINE_MS = 60_000;

let sim: Simulator;
let mf: Miniflare;

beforeAll(async () => {
  sim = await startSimulator({ mainApiLimit: SERVER_LIMIT, rateLimitWindowMs: WINDOW_MS });
  const scriptPath = await bundleWorker(`${PACKAGE_DIR}/workers/module-scope.ts`, "module-scope");
  const bindings = { SIM: { ...endpointsOf(sim) }, LIMIT: PER_WORKER, WINDOW_MS };
  const worker = (name: string) => ({
    name,
    modules: true,
    scriptPath,
    compatibilityDate: "2025-09-01",
    bindings: { ...bindings, NAME: name } as unknown as Record<string, never>,
    // Each Worker answers its own host name, so dispatchFetch reaches the one named.
    routes: [`${name}.proof.invalid/*`],
  });
  mf = new Miniflare({ workers: [worker("a"), worker("b"), worker("c")] });
  await mf.ready;
});

// Each rule starts with the server's windows empty and its log clear.
beforeEach(() => sim.control.reset());

afterAll(async () => {
  await mf?.dispose();
  await sim?.close();
});

/** What one request to a Worker came back with: its status and body as text. */
interface Answer {
  status: number;
  text: string;
}

/** Sends one request to Worker `name`; fails with a clear message past {@link DEADLINE_MS}. */
async function call(name: string, path: string): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Worker ${name} ${path}: no answer within ${DEADLINE_MS} ms`)),
      DEADLINE_MS,
    );
  });
  try {
    const sent = mf.dispatchFetch(`http://${name}.proof.invalid${path}`, { method: "POST" }).then(
      async (response) => ({ status: response.status, text: await response.text() }),
      // miniflare rethrows what workerd answered for a cancelled request: kept as a failed answer.
      (error: unknown) => ({ status: 0, text: String(error) }),
    );
    return await Promise.race([sent, overrun]);
  } finally {
    clearTimeout(timer);
  }
}

/** The answers that are not a JSON `{ ok: true }` (a request cancelled as hung is a 500 saying so). */
const failures = (answers: Answer[]) =>
  answers.filter((a) => {
    if (a.status !== 200) return true;
    try {
      return (JSON.parse(a.text) as { ok?: unknown }).ok !== true;
    } catch {
      return true;
    }
  });

describe("a module-scope client's budget: concurrent requests each wait on their own timer", () => {
  it(`${CONCURRENT} concurrent requests in each of two Workers all complete, none cancelled as hung, none refused with 429, never over the limit`, async () => {
    const ids: Record<string, string> = {};
    for (const name of ["a", "b"]) {
      const created = await call(name, "/create");
      expect(failures([created]), created.text).toEqual([]);
      ids[name] = (JSON.parse(created.text) as { output: { promotionId: string } }).output.promotionId;
    }
    const answers = await Promise.all(
      ["a", "b"].flatMap((name) =>
        Array.from({ length: CONCURRENT }, () => call(name, `/get?id=${ids[name]}`)),
      ),
    );
    const failed = failures(answers);
    expect(failed.length, JSON.stringify(failed.slice(0, 3), null, 2)).toBe(0);
    const by = answers.map((a) => (JSON.parse(a.text) as { worker: string }).worker);
    expect(by).toEqual([...Array(CONCURRENT).fill("a"), ...Array(CONCURRENT).fill("b")]);
    const main = sim.control.requests().filter((e) => e.service === "main" && e.path.startsWith("/v1/"));
    expect(main.filter((e) => e.path.startsWith("/v1/promotions/") && e.method === "GET")).toHaveLength(
      2 * CONCURRENT,
    );
    expect(main.filter((e) => e.status === 429)).toEqual([]);
    expect(
      maxInAnyWindow(
        main.map((e) => Date.parse(e.time)),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(SERVER_LIMIT);
  });
});

describe("a module-scope client's reference cache: a request never waits on another request's fetch", () => {
  it("concurrent first reads of the same list all complete, and the list is fetched once", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => call("c", "/channels")));
    const failed = failures(answers);
    expect(failed.length, JSON.stringify(failed.slice(0, 3), null, 2)).toBe(0);
    for (const a of answers) {
      expect(JSON.parse(a.text)).toEqual({
        ok: true,
        worker: "c",
        output: { channels: sim.reference.channels.length },
      });
    }
    const fetched = sim.control.requests().filter((e) => e.path === "/v1/channels");
    expect(fetched).toHaveLength(1);
  });
});
