/**
 * The Durable Object stores of issue 25 in real workerd (miniflare): two Workers, so two isolates
 * that share no memory, bound to the same Durable Object namespaces, against a simulator on 127.0.0.1.
 * What one isolate claims or spends, the other sees; what expires is deleted; a store that does not
 * answer fails closed at its deadline.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { Miniflare, type MiniflareOptions } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { bundleWorker, PACKAGE_DIR } from "./harness/bundle.ts";
import { type CapturedDelivery, captureDelivery } from "./harness/deliveries.ts";

const CLASSES = {
  // One class serves the claims and the budget, as a user's Worker binds it.
  REPLAY: "InspectableState",
  SLOW_REPLAY: "StalledReplayObject",
  LATE_REPLAY: "LateReplayObject",
  BUDGET: "InspectableState",
  SLOW_BUDGET: "StalledBudgetObject",
};

// biome-ignore lint/suspicious/noExplicitAny: each route answers its own JSON.
type Answer = { ok: boolean; error?: Record<string, string>; elapsedMs: number; [key: string]: any };
type Worker = (route: string, input: Record<string, unknown>) => Promise<Answer>;

let mf: Miniflare;
let options: MiniflareOptions;
let persistDir: string;
let sim: Simulator;
let owner: Worker;
let other: Worker;

/** What the test needs of miniflare's `getWorker()` answer (its Workers types differ from the DOM's). */
interface WorkerFetcher {
  fetch(
    url: string,
    init: { method: string; body: string },
  ): Promise<{ status: number; text(): Promise<string> }>;
}

function workerCaller(fetcher: WorkerFetcher): Worker {
  return async (route, input) => {
    const response = await fetcher.fetch(`http://proof.invalid/${route}`, {
      method: "POST",
      body: JSON.stringify(input),
    });
    const text = await response.text();
    try {
      return JSON.parse(text) as Answer;
    } catch {
      throw new Error(`route ${route} answered HTTP ${response.status}: ${text.slice(0, 2000)}`);
    }
  };
}

async function connectWorkers(): Promise<void> {
  owner = workerCaller((await mf.getWorker("owner")) as unknown as WorkerFetcher);
  other = workerCaller((await mf.getWorker("other")) as unknown as WorkerFetcher);
}

beforeAll(async () => {
  const script = await bundleWorker(`${PACKAGE_DIR}/workers/durable-objects.ts`, "durable-objects");
  const bindings = (scriptName?: string) =>
    Object.fromEntries(
      Object.entries(CLASSES).map(([name, className]) => [
        name,
        { className, useSQLite: true, ...(scriptName ? { scriptName } : {}) },
      ]),
    );
  // Storage on disk, so that a restart of workerd keeps it (as Cloudflare's storage outlives an object).
  persistDir = mkdtempSync(join(tmpdir(), "proof-durable-objects-"));
  options = {
    durableObjectsPersist: persistDir,
    workers: [
      {
        name: "owner",
        modules: true,
        scriptPath: script,
        compatibilityDate: "2025-09-01",
        durableObjects: bindings(),
      },
      {
        name: "other",
        modules: true,
        scriptPath: script,
        compatibilityDate: "2025-09-01",
        durableObjects: bindings("owner"),
      },
    ],
  };
  mf = new Miniflare(options);
  await connectWorkers();
  sim = await startSimulator({ rateLimitWindowMs: 1000, mainApiLimit: 4 });
});

afterAll(async () => {
  await mf?.dispose();
  await sim?.close();
  if (persistDir) rmSync(persistDir, { recursive: true, force: true });
});

const unique = (label: string) => `${label}-${crypto.randomUUID()}`;
const workers = () => [owner, other];

describe("the two Workers are two isolates", () => {
  it("each keeps its own memory", async () => {
    const [a, b] = await Promise.all([owner("isolate", {}), other("isolate", {})]);
    expect(a.isolate).toEqual(expect.any(String));
    expect(b.isolate).toEqual(expect.any(String));
    expect(a.isolate).not.toBe(b.isolate);
  });
});

describe("durableObjectReplayStore: a webhook-id is accepted once across isolates", () => {
  let delivery: CapturedDelivery;
  beforeAll(async () => {
    delivery = await captureDelivery(sim);
  });

  it("100 concurrent copies of one signed delivery over two Workers: exactly 1 accepted, the rest refused as replays", async () => {
    const input = {
      secret: sim.webhookSecret,
      headers: delivery.headers,
      body: Buffer.from(delivery.bodyBase64, "base64").toString("utf8"),
      timeoutMs: 20_000,
    };
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => workers()[i % 2]!("verify", input)),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    const refusals = answers.filter((a) => !a.ok).map((a) => a.error);
    expect(refusals).toHaveLength(99);
    // A refusal is the verifier's typed replay refusal (or, on an overloaded machine, the store's
    // typed fail-closed error): never an accepted duplicate, never an untyped failure.
    for (const error of refusals) {
      expect(
        error?.["reason"] === "replayed" || error?.["code"] === "REPLAY_STORE_FAILED",
        JSON.stringify(error),
      ).toBe(true);
    }
    expect(refusals.filter((e) => e?.["reason"] === "replayed").length).toBeGreaterThan(90);
  });

  it("release in one isolate lets a retry through in the other", async () => {
    const id = unique("msg");
    expect((await owner("claim", { id, ttlMs: 60_000 })).claimed).toBe(true);
    expect((await other("claim", { id, ttlMs: 60_000 })).claimed).toBe(false);
    expect((await other("release", { id })).ok).toBe(true);
    expect((await owner("claim", { id, ttlMs: 60_000 })).claimed).toBe(true);
  });

  it("deletes an expired claim (alarm), so storage holds one replay window of ids", async () => {
    const id = unique("msg");
    expect((await owner("claim", { id, ttlMs: 300 })).claimed).toBe(true);
    const held = await other("inspectReplay", { id });
    expect(held.keys).toEqual(["held"]);
    expect(held.alarm).toEqual(expect.any(Number));
    await expect
      .poll(async () => (await other("inspectReplay", { id })).keys, { timeout: 10_000, interval: 100 })
      .toEqual([]);
    expect((await other("inspectReplay", { id })).alarm).toBeNull();
    expect((await other("claim", { id, ttlMs: 60_000 })).claimed).toBe(true);
  });

  it("fails closed with REPLAY_STORE_FAILED within timeoutMs, and the sender's retry is then accepted", async () => {
    const id = unique("msg");
    const late = await owner("claim", { id, ttlMs: 60_000, object: "slow", timeoutMs: 200 });
    expect(late.ok).toBe(false);
    expect(late.error).toMatchObject({ name: "PromoReviewError", code: "REPLAY_STORE_FAILED" });
    // The object takes the claim up after 1.5 s; the caller gave up long before.
    expect(late.elapsedMs).toBeLessThan(1500);
    // The sender's retry is accepted, not refused as a "replay".
    const retry = await other("claim", { id, ttlMs: 60_000, object: "slow", timeoutMs: 10_000 });
    expect(retry.claimed).toBe(true);
  });

  it("undoes a claim recorded in time whose answer came too late", async () => {
    const id = unique("msg");
    const late = await owner("claim", { id, ttlMs: 60_000, object: "late", timeoutMs: 200 });
    expect(late.error).toMatchObject({ code: "REPLAY_STORE_FAILED" });
    expect(late.elapsedMs).toBeLessThan(1500);
    // The undo follows the claim through the same stub (kept alive by ctx.waitUntil).
    const retry = await other("claim", { id, ttlMs: 60_000, object: "late", timeoutMs: 10_000 });
    expect(retry.claimed).toBe(true);
  });
});

describe("durableObjectBudgetStore: one key's budget shared by every isolate", () => {
  const headers = () => ({ Authorization: `Bearer ${sim.apiKey}`, "X-External-User-ID": sim.externalUserId });

  it("12 calls over two Workers against a 4-per-second service: no 429, never more than 4 in any window", async () => {
    sim.control.reset();
    const keyId = unique("key");
    const input = {
      baseUrl: sim.baseUrl,
      headers: headers(),
      keyId,
      limit: 4,
      windowMs: 1000,
      safetyMarginMs: 100,
    };
    // One budget per request (this test does not depend on how one RateBudget shares its waiters).
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => workers()[i % 2]!("call", input)));
    expect(answers.map((a) => a.error)).toEqual(answers.map(() => undefined));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const log = sim.control.requests().filter((r) => r.path === "/v1/channels");
    expect(log).toHaveLength(12);
    expect(log.filter((r) => r.status === 429)).toHaveLength(0);
    expect(
      maxInAnyWindow(
        log.map((r) => Date.parse(r.time)),
        1000,
      ),
    ).toBeLessThanOrEqual(4);
  });

  it("a 429 seen in one isolate pauses the key in the other", async () => {
    sim.control.reset();
    const keyId = unique("key");
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 2, count: 1 });
    const throttled = await owner("call", {
      baseUrl: sim.baseUrl,
      headers: headers(),
      keyId,
      limit: 100,
      windowMs: 1000,
      safetyMarginMs: 0,
    });
    expect(throttled.status).toBe(429);
    const seen = await other("take", { keyId, limit: 100, windowMs: 1000, timeoutMs: 10_000 });
    expect(seen.decision).toMatchObject({ ok: false, paused: true, full: [] });
    expect(seen.decision.waitMs).toBeGreaterThan(0);
  });

  it("admits exactly the limit per window across isolates, and deletes storage once the window is empty", async () => {
    const keyId = unique("key");
    const input = { keyId, limit: 3, windowMs: 400, timeoutMs: 10_000 };
    const decisions = await Promise.all(
      Array.from({ length: 10 }, (_, i) => workers()[i % 2]!("take", input)),
    );
    expect(decisions.filter((d) => d.decision.ok)).toHaveLength(3);
    const held = await owner("inspectBudget", { keyId });
    expect(held.keys).toEqual(["held"]);
    expect(held.alarm).toEqual(expect.any(Number));
    await expect
      .poll(async () => (await other("inspectBudget", { keyId })).keys, { timeout: 10_000, interval: 100 })
      .toEqual([]);
    expect((await other("take", input)).decision.ok).toBe(true);
  });

  it("keeps a key's admissions and pause across a restart of the runtime (the object decides from memory)", async () => {
    const keyId = unique("key");
    const input = { keyId, limit: 2, windowMs: 60_000, timeoutMs: 10_000 };
    expect((await owner("take", input)).decision.ok).toBe(true);
    expect((await other("take", input)).decision.ok).toBe(true);
    // Every object is gone from memory (the isolates are new); only storage remains.
    const before = (await owner("isolate", {})).isolate;
    await mf.setOptions(options);
    await connectWorkers();
    expect((await owner("isolate", {})).isolate).not.toBe(before);
    expect((await other("take", input)).decision).toMatchObject({ ok: false, paused: false, full: ["w"] });
    await owner("pause", { keyId, ms: 30_000 });
    await mf.setOptions(options);
    await connectWorkers();
    expect((await owner("take", input)).decision).toMatchObject({ ok: false, paused: true });
  });

  it("fails closed with BUDGET_STORE_UNAVAILABLE within timeoutMs, or falls back to memory when open", async () => {
    const input = { keyId: unique("key"), limit: 3, windowMs: 1000, timeoutMs: 200, slow: true };
    const closed = await owner("take", input);
    expect(closed.ok).toBe(false);
    expect(closed.error).toMatchObject({ name: "PromoReviewError", code: "BUDGET_STORE_UNAVAILABLE" });
    expect(closed.elapsedMs).toBeLessThan(1500);
    const open = await other("take", { ...input, whenUnavailable: "open" });
    expect(open.decision).toEqual({ ok: true });
    expect(open.elapsedMs).toBeLessThan(1500);
  });
});

describe("storeJournal on Durable Objects: two isolates share one batch journal", () => {
  it("both append at once: every record kept once, each isolate's in its order, read whole from either", async () => {
    const name = unique("journal");
    const appended = await Promise.all([
      owner("journalAppend", { name, writer: "a", n: 12 }),
      other("journalAppend", { name, writer: "b", n: 12 }),
    ]);
    expect(appended.map((answer) => answer.ok)).toEqual([true, true]);
    const read = await other("journalRead", { name });
    const keys = (read.records as { key: string }[]).map((record) => record.key);
    for (const writer of ["a", "b"]) {
      expect(keys.filter((key) => key.startsWith(`${writer}-`))).toEqual(
        Array.from({ length: 12 }, (_, i) => `${writer}-${i}`),
      );
    }
    expect(keys).toHaveLength(24);
  });

  it("a lease held in one isolate refuses the other with JOURNAL_BUSY, naming the holder", async () => {
    const name = unique("journal-lease");
    expect((await owner("journalLease", { name, owner: "runner-a" })).ok).toBe(true);
    const refused = await other("journalLease", { name, owner: "runner-b" });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: "JOURNAL_BUSY" });
    expect(refused.error?.["message"]).toMatch(/in use by runner runner-a/);
  });
});
