/**
 * A resume store in files, so that an upload survives its process: Ctrl-C, a crash or a reboot, and
 * the same file uploaded again continues where the service says it got to. Node-only (`./node`).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { userCacheDirectory } from "./cache-directory.js";
import { parseResumeRecord } from "./stored-record.js";
import type { ResumeRecord, ResumeStore } from "./types.js";

/** Options of {@link fileResumeStore}. */
export interface FileResumeStoreOptions {
  /**
   * The directory of the state files (created on first write, mode 0700). Default: `uploads` in the
   * user's cache directory (see {@link userCacheDirectory}).
   */
  directory?: string;
}

/** What one state file holds: the record, and the fingerprint it belongs to (names are hashes). */
interface StateFile extends ResumeRecord {
  fingerprint: string;
  savedAt: string;
}

/** The state file's name for a fingerprint: fingerprints hold file names, which may hold anything. */
export function stateFileName(fingerprint: string): string {
  return `${createHash("sha256").update(fingerprint).digest("hex")}.json`;
}

/**
 * A store with one small JSON file per fingerprint. Each write goes to a temporary file that is then
 * renamed over the state file, so a process killed mid-write leaves the old state or the new one,
 * never half of each. Files are readable by their owner only (they name upload ids).
 */
export function fileResumeStore(options: FileResumeStoreOptions = {}): ResumeStore & {
  /** The directory the state files are in. */
  readonly directory: string;
} {
  const directory = options.directory ?? join(userCacheDirectory(), "uploads");
  const pathOf = (fingerprint: string) => join(directory, stateFileName(fingerprint));
  return {
    directory,
    async get(fingerprint) {
      const raw = await readFile(pathOf(fingerprint), "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined;
        throw error;
      });
      // A file naming another fingerprint (a copied cache, a hash collision) is not this upload's.
      return parseResumeRecord(raw, (state) => state["fingerprint"] === fingerprint);
    },
    async set(fingerprint, record) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const target = pathOf(fingerprint);
      const temporary = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      const state: StateFile = { ...record, fingerprint, savedAt: new Date().toISOString() };
      try {
        await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async delete(fingerprint) {
      await rm(pathOf(fingerprint), { force: true });
    },
  };
}
