/**
 * A batch journal in Deno KV (`storeJournal` over `denoKvStore`) in the real deno: separate deno
 * processes on one KV file, as runners on one Deno KV share it. Records appended at once by two are
 * all kept, each one's in its order; a lease left by a process that ended (as a killed runner leaves
 * it) refuses the next runner until it expires.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kvFolder, runDeno } from "../../../testing/deno.ts";

const PACKAGE_DIR = join(import.meta.dirname, "..");
const folder = kvFolder();
afterAll(() => folder.remove());

const journal = (file: string, ...args: string[]) =>
  runDeno({
    packageDir: PACKAGE_DIR,
    script: "deno/journal.ts",
    args: [file, ...args],
    dir: folder.dir,
    timeoutMs: 60_000,
  });

describe("storeJournal on Deno KV: two deno processes share one journal", () => {
  it("both append at once: every record kept once, each process's in its order", async () => {
    const file = folder.file("journal");
    const appended = await Promise.all([
      journal(file, "spring", "append", "a", "10"),
      journal(file, "spring", "append", "b", "10"),
    ]);
    expect(appended).toEqual([{ appended: 10 }, { appended: 10 }]);
    const { records } = (await journal(file, "spring", "read")) as { records: { key: string }[] };
    const keys = records.map((record) => record.key);
    for (const writer of ["a", "b"]) {
      expect(keys.filter((key) => key.startsWith(`${writer}-`))).toEqual(
        Array.from({ length: 10 }, (_, i) => `${writer}-${i}`),
      );
    }
    expect(keys).toHaveLength(20);
  });

  it("a lease left by a process that ended refuses the next runner with JOURNAL_BUSY, naming it", async () => {
    const file = folder.file("lease");
    expect(await journal(file, "spring", "lease", "runner-a")).toEqual({ owner: "runner-a" });
    const refused = (await journal(file, "spring", "lease", "runner-b")) as {
      error: { code: string; message: string };
    };
    expect(refused.error.code).toBe("JOURNAL_BUSY");
    expect(refused.error.message).toMatch(/in use by runner runner-a/);
  });
});
