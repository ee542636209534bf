import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { waitFor } from "../../../../testing/wait-for.ts";
import { recordArb } from "../../test/support/journal-records.js";
import { fileJournal } from "./file-journal.js";
import { encodeRecord, scanRecords } from "./file-journal-records.js";
import { JOURNAL_BUSY, JOURNAL_DAMAGED, type JournalRecord } from "./journal.js";

const dir = mkdtempSync(join(tmpdir(), "sdk-journal-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;
const freshPath = () => join(dir, `journal-${++files}.log`);

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* chunksOf(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe("records are appended in order and read back whole", () => {
  it("reads what was appended, in the order asked, however many appends run at once", async () => {
    const journal = fileJournal(freshPath(), { sync: false });
    const written = Array.from(
      { length: 50 },
      (_, i): JournalRecord => ({
        type: "intent",
        key: `item-${i}`,
        step: "create",
        at: i,
      }),
    );
    await Promise.all(written.map((record) => journal.append(record)));
    expect(await all(journal.read())).toEqual(written);
    await journal.close();
  });

  it("reads nothing from a journal not yet written, and flushes each record by default", async () => {
    const path = freshPath();
    const journal = fileJournal(path);
    expect(await all(journal.read())).toEqual([]);
    await journal.append({ type: "batch", batchId: "b", at: 1 });
    expect(await all(fileJournal(path).read())).toEqual([{ type: "batch", batchId: "b", at: 1 }]);
    await journal.close();
  });
});

describe("a crash at any byte leaves the journal readable up to its last whole record", () => {
  it("reads the whole records before any cut point, for any records and any chunking", () => {
    fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 64 }),
        async (records, chunk) => {
          const encoded = records.map(encodeRecord);
          const bytes = Buffer.concat(encoded);
          const ends = encoded.map((_, i) => encoded.slice(0, i + 1).reduce((sum, b) => sum + b.length, 0));
          for (let cut = 0; cut <= bytes.length; cut += 1) {
            const steps = await all(scanRecords(chunksOf(bytes.subarray(0, cut), chunk)));
            const whole = records.filter((_, i) => ends[i]! <= cut);
            expect(
              steps.filter((s) => s.kind === "record").map((s) => s.kind === "record" && s.record),
            ).toEqual(whole);
            // At most one piece is not whole, and only at the end.
            const bad = steps.filter((s) => s.kind === "bad");
            expect(bad.length).toBe(ends.includes(cut) || cut === 0 ? 0 : 1);
            if (bad.length === 1) expect(steps.at(-1)!.kind).toBe("bad");
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("goes on after a torn tail: the next append starts on a line of its own", async () => {
    const records: JournalRecord[] = [
      { type: "batch", batchId: "b1", at: 1 },
      { type: "intent", key: "é", step: "create", at: 2 },
      { type: "done", key: "é", step: "create", at: 3, ids: { promotionId: "p" } },
    ];
    const bytes = Buffer.concat(records.map(encodeRecord));
    const after: JournalRecord = { type: "intent", key: "next", step: "submit", at: 4 };
    // Every cut point of the file, read by a new runner that then appends.
    const ends = [
      0,
      ...records.map((_, i) => Buffer.concat(records.slice(0, i + 1).map(encodeRecord)).length),
    ];
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const path = freshPath();
      writeFileSync(path, bytes.subarray(0, cut));
      const journal = fileJournal(path, { sync: false });
      const whole = records.slice(0, ends.filter((end) => end > 0 && end <= cut).length);
      expect(await all(journal.read())).toEqual(whole);
      await journal.append(after);
      expect(await all(journal.read())).toEqual([...whole, after]);
      await journal.close();
    }
  });

  it("reads past nothing after a last line whose checksum does not match", async () => {
    const path = freshPath();
    const good = encodeRecord({ type: "batch", batchId: "b", at: 1 });
    const forged = Buffer.from(
      encodeRecord({ type: "batch", batchId: "c", at: 1 }).toString().replace("c", "d"),
    );
    writeFileSync(path, Buffer.concat([good, forged]));
    expect(await all(fileJournal(path).read())).toEqual([{ type: "batch", batchId: "b", at: 1 }]);
  });

  it("refuses a damaged record with whole records after it: that is damage, not a crash", async () => {
    const path = freshPath();
    const a = encodeRecord({ type: "batch", batchId: "b", at: 1 });
    writeFileSync(path, Buffer.concat([a, Buffer.from("garbage\n"), a]));
    const journal = fileJournal(path);
    await expect(all(journal.read())).rejects.toMatchObject({
      code: JOURNAL_DAMAGED,
      message: expect.stringContaining("line 2"),
    });
    await expect(journal.append({ type: "batch", batchId: "x", at: 2 })).rejects.toMatchObject({
      code: JOURNAL_DAMAGED,
    });
    // Nothing was cut or added.
    expect(readFileSync(path)).toEqual(Buffer.concat([a, Buffer.from("garbage\n"), a]));
  });
});

describe("two runners never both run a journal's items", () => {
  it("refuses the second at once with a clear message, and lets it in once the first releases", async () => {
    const journal = fileJournal(freshPath());
    const first = await journal.lease({ owner: "runner-1" });
    const refused = await journal.lease({ owner: "runner-2" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: JOURNAL_BUSY });
    expect((refused as Error).message).toContain(`in use by runner runner-1 (pid ${process.pid}`);
    await first.release();
    const second = await journal.lease({ owner: "runner-2" });
    expect(second.owner).toBe("runner-2");
    await second.release();
  });

  it("makes the second wait, when told to, until the first releases", async () => {
    const journal = fileJournal(freshPath());
    const first = await journal.lease({ owner: "runner-1" });
    const second = journal.lease({ owner: "runner-2", waitMs: 60_000 });
    let got = false;
    void second.then(() => {
      got = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(got).toBe(false);
    await first.release();
    expect((await second).owner).toBe("runner-2");
    await (await second).release();
  });

  it("takes over the lease of a runner whose process is gone (a SIGKILL), and of one that expired", async () => {
    const path = freshPath();
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid!;
    writeFileSync(
      `${path}.lease`,
      JSON.stringify({ owner: "killed", pid: ended, host: hostname(), expiresAt: Date.now() + 3_600_000 }),
    );
    const journal = fileJournal(path);
    const taken = await journal.lease({ owner: "runner-2" });
    expect(JSON.parse(readFileSync(`${path}.lease`, "utf8"))).toMatchObject({
      owner: "runner-2",
      pid: process.pid,
    });
    await taken.release();
    writeFileSync(
      `${path}.lease`,
      JSON.stringify({ owner: "elsewhere", pid: 1, host: "another-host", expiresAt: Date.now() - 1 }),
    );
    const again = await journal.lease({ owner: "runner-3" });
    expect(again.owner).toBe("runner-3");
    await again.release();
    // A torn lease (a crash while it was written) is a gone holder's too.
    writeFileSync(`${path}.lease`, '{"owner":"tor');
    await (await journal.lease({ owner: "runner-4" })).release();
  });

  it("keeps a live runner's lease on another host until it expires", async () => {
    const path = freshPath();
    writeFileSync(
      `${path}.lease`,
      JSON.stringify({ owner: "remote", pid: 1, host: "another-host", expiresAt: Date.now() + 3_600_000 }),
    );
    await expect(fileJournal(path).lease({ owner: "runner-2" })).rejects.toMatchObject({
      code: JOURNAL_BUSY,
    });
  });

  it("renews a held lease, and tells its holder (signal) once another runner took it over", async () => {
    const path = freshPath();
    const lease = await fileJournal(path).lease({ owner: "runner-1", ttlMs: 90 });
    const before = JSON.parse(readFileSync(`${path}.lease`, "utf8")).expiresAt as number;
    // Waits for the renewal itself (every ttlMs / 3), not for a time it is hoped to fit in: under load
    // the renewal's file write may take longer than any fixed sleep.
    const expiresAt = () => {
      try {
        return JSON.parse(readFileSync(`${path}.lease`, "utf8")).expiresAt as number;
      } catch {
        return before; // read while being written: not renewed yet, as far as this look can tell
      }
    };
    await waitFor(() => expiresAt() > before, 10_000, "the lease renewed");
    expect(expiresAt()).toBeGreaterThan(before);
    expect(lease.signal.aborted).toBe(false);
    writeFileSync(
      `${path}.lease`,
      JSON.stringify({
        owner: "runner-2",
        pid: process.pid,
        host: hostname(),
        expiresAt: Date.now() + 60_000,
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the lost lease was never noticed")), 10_000);
      lease.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    expect(lease.signal.reason).toMatchObject({ code: JOURNAL_BUSY });
    // Releasing a lost lease leaves the new holder's alone.
    await lease.release();
    expect(JSON.parse(readFileSync(`${path}.lease`, "utf8")).owner).toBe("runner-2");
  });
});
