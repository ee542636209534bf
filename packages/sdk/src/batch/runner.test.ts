import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "@promo-review/simulator";
import { afterAll, describe, expect, it } from "vitest";
import { useSimulator } from "../../../../testing/simulator.ts";
import { clientFor, promotionFields } from "../../test/support/sim.js";
import { fileJournal, fileSource } from "../node.js";
import { BATCH_ID_METADATA, type BatchItem, ITEM_KEY_METADATA } from "./items.js";
import type { BatchJournal } from "./journal.js";
import { readState } from "./journal-state.js";
import type { BatchOutcome } from "./outcome.js";
import { pooled } from "./pool.js";
import type { BatchProgress } from "./progress.js";
import type { BatchRunOptions } from "./runner.js";

const sim = useSimulator(startSimulator, {
  seed: 33,
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
  uploadProcessingDelayMs: 20,
  linkImportDelayMs: 20,
  evaluationDelayMs: 20,
  maxChunkSize: 64 * 1024,
});
const dir = mkdtempSync(join(tmpdir(), "sdk-batch-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let journals = 0;
const freshJournal = () => fileJournal(join(dir, `batch-${++journals}.journal`), { sync: false });
const pdfPath = join(dir, "flyer.pdf");
writeFileSync(pdfPath, `%PDF-1.4 ${"x".repeat(200 * 1024)}`);
const openFile = (path: string) => fileSource(path, { type: "application/pdf" });

/** A client whose POST /v1/promotions bodies the test can read. */
function recordingClient() {
  const created: Record<string, unknown>[] = [];
  const client = clientFor(sim(), {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "POST" && new URL(request.url).pathname === "/v1/promotions") {
        created.push((await request.clone().json()) as Record<string, unknown>);
      }
      return fetch(request);
    },
  });
  return { client, created };
}

const textItem = (key: string, extra: Partial<BatchItem> = {}): BatchItem => ({
  ...promotionFields(sim()),
  key,
  fileFormat: "text",
  content: `Offer ${key}`,
  ...extra,
});

async function runAll(client: ReturnType<typeof clientFor>, items: BatchItem[], options: BatchRunOptions) {
  const outcomes: BatchOutcome[] = [];
  for await (const outcome of client.batch.run(items, options)) outcomes.push(outcome);
  return outcomes.sort((a, b) => a.key.localeCompare(b.key));
}

const requests = (method: string, path: RegExp) =>
  sim()
    .control.requests()
    .filter((r) => r.method === method && path.test(r.path));

describe("a batch runs each item's steps in order, and yields one outcome per item", () => {
  it("creates from text, files and links, submits and evaluates, each promotion carrying its key and the batch id", async () => {
    const { client, created } = recordingClient();
    const journal = freshJournal();
    const items = [
      textItem("a-text", { submit: true, evaluate: true }),
      { ...textItem("b-file"), fileFormat: "pdf", content: undefined, files: [pdfPath, pdfPath] },
      {
        ...textItem("c-link", { submit: true }),
        fileFormat: undefined,
        content: undefined,
        link: "https://docs.google.com/document/d/1AbCdEf/edit",
      },
    ] as BatchItem[];
    const progress: BatchProgress[] = [];
    const outcomes = await runAll(client, items, {
      journal,
      openFile,
      total: 3,
      onProgress: (p) => progress.push(p),
    });
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ["a-text", "done"],
      ["b-file", "done"],
      ["c-link", "done"],
    ]);
    expect(outcomes[0]).toMatchObject({ submitStatus: "pending", evaluationId: expect.any(String) });
    expect(outcomes[2]).toMatchObject({ submitStatus: "pending", evaluationId: undefined });
    const batchId = (await readState(journal.read())).batchId;
    expect(batchId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      created.map((body) => (body["metadata"] as Record<string, string>)[ITEM_KEY_METADATA]).sort(),
    ).toEqual(["a-text", "b-file", "c-link"]);
    for (const body of created)
      expect((body["metadata"] as Record<string, string>)[BATCH_ID_METADATA]).toBe(batchId);
    // The campaign metadata of the line is kept beside them.
    expect((created[0]!["metadata"] as Record<string, string>)["campaign"]).toBe("spring");
    expect(created.find((body) => (body["uploadIds"] as string[] | undefined)?.length === 2)).toBeDefined();
    expect(requests("POST", /^\/v1\/uploads$/)).toHaveLength(2);
    expect(progress.at(-1)).toMatchObject({ done: 3, total: 3, failed: 0, ambiguous: 0, etaMs: 0 });
    // No step creates a version (README: a line is one promotion, its first version made with it):
    // each item's version is the creation's, and no request adds another.
    expect(requests("POST", /\/versions$/)).toEqual([]);
    for (const outcome of outcomes) expect(outcome.versionId).toMatch(/^[0-9a-f-]{36}$/);
    await journal.close();
  });

  it("reports a failed step with its error and goes on with the other items", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    const outcomes = await runAll(
      client,
      [textItem("bad", { details: "d".repeat(1501) }), textItem("good")],
      { journal },
    );
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ["bad", "failed"],
      ["good", "done"],
    ]);
    expect(outcomes[0]!.error).toMatchObject({ step: "create", code: "VALIDATION_ERROR" });
    await journal.close();
  });
});

describe("a re-run with the same journal goes on where the last one stopped", () => {
  it("sends nothing for the items already done", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    const items = [textItem("a", { submit: true }), textItem("b")];
    const first = await runAll(client, items, { journal });
    const sent = sim().control.requests().length;
    const second = await runAll(client, items, { journal });
    expect(sim().control.requests().length).toBe(sent);
    expect(second.map(({ fromJournal: _, ...o }) => o)).toEqual(first);
    expect(second.every((o) => o.fromJournal)).toBe(true);
    await journal.close();
  });

  it("reports a visible step whose answer was never recorded as ambiguous, and repeats it only when told", async () => {
    const { client, created } = recordingClient();
    const journal = freshJournal();
    await runAll(client, [textItem("a")], { journal });
    // A crash after the creation was sent and before its answer was recorded.
    await journal.append({ type: "intent", key: "b", step: "create", at: Date.now() });
    const items = [textItem("a"), textItem("b"), textItem("c")];
    const outcomes = await runAll(client, items, { journal });
    expect(outcomes.map((o) => [o.key, o.status, o.ambiguous])).toEqual([
      ["a", "done", undefined],
      ["b", "ambiguous", { step: "create" }],
      ["c", "done", undefined],
    ]);
    expect(created.map((body) => (body["metadata"] as Record<string, string>)[ITEM_KEY_METADATA])).toEqual([
      "a",
      "c",
    ]);
    const retried = await runAll(client, items, { journal, retryAmbiguous: true });
    // The repeated step is named in the outcome, and the journal keeps that it was repeated on purpose.
    expect(retried.map((o) => [o.key, o.status, o.retried])).toEqual([
      ["a", "done", undefined],
      ["b", "done", [{ step: "create" }]],
      ["c", "done", undefined],
    ]);
    expect(created).toHaveLength(3);
    const again = await runAll(client, items, { journal });
    expect(again.find((o) => o.key === "b")).toMatchObject({
      fromJournal: true,
      retried: [{ step: "create" }],
    });
    expect(created).toHaveLength(3);
    const state = await readState(journal.read());
    expect(state.items.get("b")?.retried).toEqual([{ step: "create" }]);
    await journal.close();
  });

  it("does an interrupted capture again", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    const link = "https://docs.google.com/document/d/1AbCdEf/edit";
    const item = { ...textItem("l"), fileFormat: undefined, content: undefined, link } as BatchItem;
    // A crash after the capture was sent and before its answer was recorded: harmless to redo.
    await journal.append({ type: "intent", key: "l", step: "capture", at: Date.now() });
    const outcomes = await runAll(client, [item], { journal });
    expect(outcomes.map((o) => o.status)).toEqual(["done"]);
    expect(requests("POST", /^\/v1\/links$/)).toHaveLength(1);
    await journal.close();
  });

  it("resumes an interrupted upload from the service's offset: bytes the service holds are not sent again", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    // A first run sent part of the file, noted the upload's id, and died.
    const stop = new AbortController();
    let uploadId = "";
    await client.uploads
      .upload(await openFile(pdfPath), {
        signal: stop.signal,
        onProgress: (progress) => {
          uploadId = progress.uploadId;
          if (progress.bytesAcknowledged > 0) stop.abort(new Error("killed"));
        },
      })
      .catch(() => undefined);
    const held = sim().control.upload(uploadId).receivedBytes;
    expect(held).toBeGreaterThan(0);
    await journal.append({ type: "intent", key: "f", step: "upload", index: 0, at: Date.now() });
    await journal.append({
      type: "note",
      key: "f",
      step: "upload",
      index: 0,
      at: Date.now(),
      name: "uploadId",
      value: uploadId,
    });
    const before = sim().control.requests().length;
    const item = { ...textItem("f"), fileFormat: "pdf", content: undefined, files: [pdfPath] } as BatchItem;
    const outcomes = await runAll(client, [item], { journal, openFile });
    expect(outcomes.map((o) => o.status)).toEqual(["done"]);
    const rerun = sim().control.requests().slice(before);
    expect(rerun.filter((r) => r.method === "POST" && r.path === "/v1/uploads")).toEqual([]);
    const puts = rerun.filter((r) => r.method === "PUT").map((r) => r.headers["content-range"]);
    expect(puts.length).toBeGreaterThan(0);
    expect(puts.filter((range) => range?.startsWith("bytes 0-"))).toEqual([]);
    expect((await readState(journal.read())).items.get("f")?.done["upload:0"]).toEqual({ uploadId });
    await journal.close();
  });

  it("notes a new upload's id once it is initiated, so a later run can resume it", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    const item = { ...textItem("g"), fileFormat: "pdf", content: undefined, files: [pdfPath] } as BatchItem;
    await runAll(client, [item], { journal, openFile });
    const state = await readState(journal.read());
    expect(state.items.get("g")?.notes["upload:0:uploadId"]).toBe(
      state.items.get("g")?.done["upload:0"]?.["uploadId"],
    );
    await journal.close();
  });
});

describe("what a step cannot do is that item's failure, with a message naming the fix", () => {
  it("an item with files and no openFile fails naming openFile; nothing is sent for it", async () => {
    const { client, created } = recordingClient();
    const journal = freshJournal();
    const item = {
      ...textItem("no-open"),
      fileFormat: "pdf",
      content: undefined,
      files: [pdfPath],
    } as BatchItem;
    const outcomes = await runAll(client, [item, textItem("plain")], { journal });
    expect(outcomes.map((o) => [o.key, o.status])).toEqual([
      ["no-open", "failed"],
      ["plain", "done"],
    ]);
    expect(outcomes[0]!.error).toMatchObject({ step: "upload", index: 0, code: "ERROR" });
    expect(outcomes[0]!.error?.message).toMatch(/pass openFile to batch\.run/);
    expect(created).toHaveLength(1);
    await journal.close();
  });

  it("an upload the journal noted but the service no longer has is started again", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    await journal.append({ type: "intent", key: "gone", step: "upload", index: 0, at: Date.now() });
    const unknown = crypto.randomUUID();
    await journal.append({
      type: "note",
      key: "gone",
      step: "upload",
      index: 0,
      at: Date.now(),
      name: "uploadId",
      value: unknown,
    });
    const before = sim().control.requests().length;
    const item = {
      ...textItem("gone"),
      fileFormat: "pdf",
      content: undefined,
      files: [pdfPath],
    } as BatchItem;
    const outcomes = await runAll(client, [item], { journal, openFile });
    expect(outcomes.map((o) => o.status)).toEqual(["done"]);
    const rerun = sim().control.requests().slice(before);
    expect(rerun.filter((r) => r.method === "POST" && r.path === "/v1/uploads")).toHaveLength(1);
    const uploadId = (await readState(journal.read())).items.get("gone")?.done["upload:0"]?.["uploadId"];
    expect(uploadId).toEqual(expect.any(String));
    expect(uploadId).not.toBe(unknown);
    await journal.close();
  });
});

describe("progress counts the time spent waiting on each budget", () => {
  it("a budget of one request per 2 s makes the creations wait, and progress says on which budget", async () => {
    const client = clientFor(sim(), {
      rateBudget: {
        safetyMarginMs: 0,
        budgets: [{ name: "shared", limit: 1, windowMs: 2000, match: { pathPrefix: "/v1/" } }],
      },
    });
    // The window is full before the run starts, so its first creation waits however slow the machine
    // (a run that took longer than the window between two creations would otherwise not wait at all).
    await client.budget!.acquire({ method: "GET", url: `${sim().baseUrl}/v1/channels` });
    const journal = freshJournal();
    const progress: BatchProgress[] = [];
    const outcomes = await runAll(client, [textItem("w1"), textItem("w2")], {
      journal,
      concurrency: 1,
      onProgress: (p) => progress.push(p),
    });
    expect(outcomes.map((o) => o.status)).toEqual(["done", "done"]);
    expect(progress.at(-1)?.waitedMs["shared"]).toBeGreaterThan(0);
    await journal.close();
  });
});

describe("two runners never both run a journal's items", () => {
  it("refuses a second run while the first holds the lease", async () => {
    const { client } = recordingClient();
    const journal = freshJournal();
    const first = client.batch.run([textItem("a")], { journal });
    await first.next();
    await expect(runAll(client, [textItem("a")], { journal })).rejects.toMatchObject({
      code: "JOURNAL_BUSY",
    });
    await first.return(undefined);
    await journal.close();
  });
});

describe("a run stops when its signal aborts, and gives the journal back", () => {
  it("rejects with the reason, sends nothing more, and a next run takes the journal at once", async () => {
    const { client, created } = recordingClient();
    const journal = freshJournal();
    const stop = new AbortController();
    stop.abort(new Error("stopped by the user"));
    await expect(runAll(client, [textItem("a")], { journal, signal: stop.signal })).rejects.toThrow(
      "stopped by the user",
    );
    expect(created).toEqual([]);
    const outcomes = await runAll(client, [textItem("a")], { journal });
    expect(outcomes.map((o) => o.status)).toEqual(["done"]);
    await journal.close();
  });
});

describe("a run aborted while an item's request is on its way", () => {
  it("rejects (a reason that is not an Error becomes an AbortError), and the next run reports that step ambiguous", async () => {
    const stop = new AbortController();
    const created: string[] = [];
    let creations = 0;
    const client = clientFor(sim(), {
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.method === "POST" && new URL(request.url).pathname === "/v1/promotions") {
          creations += 1;
          // The second creation: the user stops the run as its request leaves (it never arrives).
          if (creations === 2) stop.abort("the user pressed Ctrl-C");
          const body = (await request.clone().json()) as { metadata: Record<string, string> };
          if (creations !== 2) created.push(body.metadata[ITEM_KEY_METADATA]!);
        }
        return fetch(request);
      },
    });
    const journal = freshJournal();
    const items = [textItem("s1"), textItem("s2"), textItem("s3")];
    await expect(
      runAll(client, items, { journal, concurrency: 1, signal: stop.signal }),
    ).rejects.toMatchObject({
      name: "AbortError",
      code: "ABORTED",
    });
    const next = await runAll(client, items, { journal, concurrency: 1 });
    // s2's request may have reached the service as far as the journal knows: reported, not repeated.
    expect(next.map((o) => [o.key, o.status, o.ambiguous])).toEqual([
      ["s1", "done", undefined],
      ["s2", "ambiguous", { step: "create" }],
      ["s3", "done", undefined],
    ]);
    expect(created.sort()).toEqual(["s1", "s3"]);
    await journal.close();
  });
});

describe("items run at most `concurrency` at once, each outcome as it finishes", () => {
  it("holds at most that many, pulling the next only when a slot frees", async () => {
    let running = 0;
    let most = 0;
    const results: number[] = [];
    for await (const n of pooled(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, (i % 4) * 3));
        running -= 1;
        return i;
      },
    )) {
      results.push(n);
    }
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
    await expect(async () => {
      for await (const _ of pooled([1], 0, async (i) => i)) void _;
    }).rejects.toThrow(RangeError);
  });

  it("closes the input when the consumer stops early", async () => {
    let closed = false;
    function* inputs() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    }
    for await (const n of pooled(inputs(), 2, async (i) => i)) if (n >= 0) break;
    expect(closed).toBe(true);
  });
});

export type { BatchJournal };
