/**
 * Resumable uploads from a page in headless Chromium (the real `localStorage` and `navigator.locks`),
 * to a simulator on 127.0.0.1: a reload mid-upload resumes from the service's offset, two tabs given
 * the same file send it once, and a full or refusing storage never fails the upload. Chromium is a
 * system program: without it this suite skips loudly, except under CI=true, where it fails instead.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { programAvailable } from "../../../testing/system-programs.ts";
import { bundleScenario } from "./harness/bundle.ts";
import { type ChromiumSession, type Outcome, startChromium } from "./harness/runners.ts";
import { endpointsOf } from "./harness/simulator.ts";

const skip = !programAvailable("chromium", "runtime-proof Chromium resumable uploads");
const CHUNK = 256 * 1024;
const SIZE = 4 * 1024 * 1024 + 12_345;
const PUTS = "PUT /v1/uploads/*";

let sim: Simulator;
let browser: ChromiumSession;
let script: string;
let work: string;
let filePath: string;
let fileSha256: string;
const pages: Page[] = [];

describe.skipIf(skip)("uploads from a page in Chromium with webStorageResumeStore()", () => {
  beforeAll(async () => {
    sim = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 20 });
    browser = await startChromium();
    script = basename(await bundleScenario("browser-uploads", "chromium"));
    work = mkdtempSync(join(tmpdir(), "proof-uploads-"));
    const bytes = randomBytes(SIZE);
    filePath = join(work, "clip.mp4");
    writeFileSync(filePath, bytes);
    fileSha256 = createHash("sha256").update(bytes).digest("hex");
  });
  afterEach(async () => {
    sim.control.clearFaults();
    // Every page shares the origin's storage: leave it empty for the next test.
    const page = await openPage();
    await page.evaluate(() => localStorage.clear());
    for (const p of pages.splice(0)) await p.close();
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe("a page reloaded mid-upload resumes the same upload from the service's offset", () => {
    it("sends no byte before that offset again, and the stored bytes hash to the file's SHA-256", async () => {
      // Slowed chunks, so the reload lands mid-upload.
      sim.control.addFault({ route: PUTS, kind: "slow", delayMs: 150 });
      const page = await openPage();
      const before = randomUUID();
      const interrupted = run(page, { correlationId: before }).catch((error: unknown) => error);
      const acknowledged = await waitFor(() => {
        const done = putsOf(before).filter(stored);
        return done.length >= 2 ? done : undefined;
      }, "two chunks of the first page acknowledged");
      const uploadId = acknowledged[0]!.uploadId;
      await page.reload();
      await interrupted;
      sim.control.clearFaults();

      await preparePage(page);
      const after = randomUUID();
      const result = await output(run(page, { correlationId: after }));
      expect(result).toMatchObject({ uploadId, status: "completed", fileSize: SIZE, locks: true });
      // The service's offset: the end of the first page's stored chunks, or of the one in flight at
      // the reload when its bytes arrived anyway (the page was gone before its answer).
      const first = putsOf(before);
      const storedEnd = first.filter(stored).reduce((sum, p) => sum + p.length, 0);
      const ends = [storedEnd, ...first.filter((p) => p.status === null).map((p) => p.start + p.length)];
      expect(storedEnd).toBeGreaterThanOrEqual(2 * CHUNK);
      expect(ends).toContain(result["resumedFrom"]);
      const offsetAtReload = result["resumedFrom"] as number;
      const resumed = putsOf(after);
      expect(resumed.length).toBeGreaterThan(0);
      expect(Math.min(...resumed.map((p) => p.start))).toBe(offsetAtReload);
      // Every chunk of the second page was taken as sent: the service held exactly the bytes before it.
      expect(resumed.every(stored)).toBe(true);
      expect(resumed.reduce((sum, p) => sum + p.length, 0)).toBe(SIZE - offsetAtReload);
      expect(sim.control.upload(uploadId).sha256).toBe(fileSha256);
    });
  });

  describe("two tabs given the same file at once send its bytes once", () => {
    it("one upload id, and the Content-Range lengths add up to the file's size", async () => {
      // Slowed chunks (about 2.5 s in all), so both pages are asking while the first uploads.
      sim.control.addFault({ route: PUTS, kind: "slow", delayMs: 150 });
      const [a, b] = await Promise.all([openPage(), openPage()]);
      const ids: string[] = [randomUUID(), randomUUID()];
      const [first, second] = await Promise.all([
        output(run(a, { correlationId: ids[0] })),
        output(run(b, { correlationId: ids[1] })),
      ]);
      expect(second["uploadId"]).toBe(first["uploadId"]);
      expect([first["status"], second["status"]]).toEqual(["completed", "completed"]);
      // One tab waited for the other's lock and found its upload done.
      expect([first["resumedFrom"], second["resumedFrom"]]).toContain(SIZE);
      const initiations = sim.control
        .requests()
        .filter((r) => r.method === "POST" && ids.includes(r.headers["x-correlation-id"] ?? ""));
      expect(initiations).toHaveLength(1);
      const sent = [...putsOf(ids[0]!), ...putsOf(ids[1]!)];
      expect(new Set(sent.map((p) => p.uploadId))).toEqual(new Set([first["uploadId"]]));
      expect(sent.reduce((sum, p) => sum + p.length, 0)).toBe(SIZE);
      expect(sim.control.upload(first["uploadId"] as string).sha256).toBe(fileSha256);
    });
  });

  describe("a full or refusing storage never fails the upload; the logger says resuming is off, once", () => {
    for (const [storage, shown] of [
      ["full", /QuotaExceededError/],
      ["refusing", /SecurityError/],
    ] as const) {
      it(`storage ${storage}: the upload completes, one warning with RESUME_STORE_UNAVAILABLE`, async () => {
        const page = await openPage();
        const result = await output(run(page, { correlationId: randomUUID(), storage }));
        expect(result).toMatchObject({ status: "completed", fileSize: SIZE, resumedFrom: 0 });
        if (storage === "full") expect(result["filled"]).toBeGreaterThan(1024 * 1024);
        const warnings = result["warnings"] as { message: string; code: string }[];
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.code).toBe("RESUME_STORE_UNAVAILABLE");
        expect(warnings[0]!.message).toMatch(/^Resuming uploads is off/);
        expect(warnings[0]!.message).toMatch(shown);
        expect(sim.control.upload(result["uploadId"] as string).sha256).toBe(fileSha256);
      });
    }
  });
});

/** A new page of the shared browser with the scenario loaded and the file picked in its input. */
async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  pages.push(page);
  await preparePage(page);
  return page;
}

/** Loads the page (again), its scenario script and a file input holding the test file. */
async function preparePage(page: Page): Promise<void> {
  await page.goto(`${browser.origin}/index.html`);
  await page.addScriptTag({ url: `${browser.origin}/${script}`, type: "module" });
  await page.waitForFunction(
    () => typeof (globalThis as { runScenario?: unknown }).runScenario === "function",
  );
  await page.evaluate(() => {
    const input = document.createElement("input");
    input.type = "file";
    document.body.append(input);
  });
  await page.setInputFiles("input[type=file]", filePath);
}

/** Runs the scenario in `page`, bounded: a page that hangs fails with what it logged. */
function run(page: Page, input: Record<string, unknown>): Promise<Outcome> {
  const logged: string[] = [];
  page.on("console", (m) => logged.push(`${m.type()}: ${m.text()}`));
  const ran = page.evaluate(
    (arg) => (globalThis as unknown as { runScenario(i: unknown): Promise<Outcome> }).runScenario(arg),
    { sim: endpointsOf(sim), ...input },
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () => fail(new Error(`the page did not finish in 60 s; console:\n${logged.join("\n")}`)),
      60_000,
    );
  });
  return Promise.race([ran, timeout]).finally(() => clearTimeout(timer));
}

/** The output of a scenario that must have succeeded, in Chromium. */
async function output(outcome: Promise<Outcome>): Promise<Record<string, unknown>> {
  const done = await outcome;
  if (!done.ok) throw new Error(`the page failed: ${JSON.stringify(done.error, null, 2)}`);
  expect(done.output["runtime"]).toBe("chromium");
  return done.output;
}

/** Chunk PUTs sent with this correlation id, oldest first: their upload, first byte and length. */
function putsOf(correlationId: string) {
  return sim.control
    .requests()
    .filter((r) => r.method === "PUT" && r.headers["x-correlation-id"] === correlationId)
    .map((r) => {
      const [, start, end] = /bytes (\d+)-(\d+)\//.exec(r.headers["content-range"] ?? "") ?? [];
      return {
        uploadId: r.path.split("/").pop()!,
        start: Number(start),
        length: Number(end) - Number(start) + 1,
        status: r.status,
      };
    });
}

function stored(put: { status: number | null }): boolean {
  return put.status !== null && put.status < 300;
}

/** Polls `check` until it gives a value; fails after 30 s naming what it waited for. */
async function waitFor<T>(check: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited 30 s for ${what}`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}
