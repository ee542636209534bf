/**
 * The file journal's lease: a file beside the journal (`<journal>.lease`) naming its holder (owner,
 * pid, host) and when it expires. It is created exclusively (`wx`), so of two runners one gets it.
 * A lease whose holder is gone (expired, or a dead process on this host, as after a SIGKILL) is
 * taken over by renaming it aside first, which only one runner can do, then creating a fresh one.
 * The holder renews it every third of its time to live; a holder that finds it is no longer the
 * owner aborts its `signal`.
 */
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { PromoReviewError } from "@promo-review/errors";
import { sleep } from "@promo-review/http";
import { JOURNAL_BUSY, type JournalLease, type LeaseOptions } from "./journal.js";
import { renewedLease } from "./lease-renewal.js";

interface LeaseFile {
  owner: string;
  pid: number;
  host: string;
  expiresAt: number;
}

const DEFAULT_TTL_MS = 30_000;
/** How often a waiting runner looks again. */
const RETRY_MS = 200;

/** Takes the lease at `path` (see the file's comment), or refuses with `JOURNAL_BUSY`. */
export async function takeFileLease(
  path: string,
  options: LeaseOptions & { now?: (() => number) | undefined },
): Promise<JournalLease> {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const waitUntil = now() + (options.waitMs ?? 0);
  const mine = (): LeaseFile => ({
    owner: options.owner,
    pid: process.pid,
    host: hostname(),
    expiresAt: now() + ttlMs,
  });
  for (;;) {
    options.signal?.throwIfAborted();
    if (await create(path, mine())) break;
    const held = await readLease(path);
    if (held === undefined) continue; // Released between the two calls: try again.
    if (isGone(held, now())) {
      await takeOver(path, held);
      continue;
    }
    if (now() >= waitUntil) throw busy(path, held);
    await sleep(Math.min(RETRY_MS, Math.max(1, waitUntil - now())), options.signal);
  }
  return holding(path, options.owner, ttlMs, mine);
}

async function create(path: string, lease: LeaseFile): Promise<boolean> {
  try {
    await writeFile(path, JSON.stringify(lease), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function readLease(path: string): Promise<LeaseFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as LeaseFile;
  } catch {
    // A lease torn by a crash while it was written: its holder is gone.
    return { owner: "(unreadable)", pid: 0, host: "", expiresAt: 0 };
  }
}

/** Whether the holder is gone: its lease expired, or its process on this host has ended. */
function isGone(lease: LeaseFile, at: number): boolean {
  if (lease.expiresAt <= at) return true;
  if (lease.host !== hostname()) return false;
  try {
    process.kill(lease.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Moves a gone holder's lease aside. Renaming is atomic, so of runners taking over at once one moves
 * it; if what was moved is not the lease seen (a fresh one, made meanwhile), it is put back.
 */
async function takeOver(path: string, seen: LeaseFile): Promise<void> {
  const aside = `${path}.${process.pid}.${crypto.randomUUID()}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = await readLease(aside);
  if (moved && JSON.stringify(moved) !== JSON.stringify(seen) && !isGone(moved, Date.now())) {
    await rename(aside, path).catch(() => undefined);
    return;
  }
  await unlink(aside).catch(() => undefined);
}

function busy(path: string, held: LeaseFile): PromoReviewError {
  return new PromoReviewError({
    code: JOURNAL_BUSY,
    message: `The journal ${path.replace(/\.lease$/, "")} is in use by runner ${held.owner} (pid ${held.pid} on ${held.host}) until ${new Date(held.expiresAt).toISOString()}: let it finish, or wait for it (a longer waitMs)`,
    retryable: true,
  });
}

/** The lease while held (see `lease-renewal.ts`): renewed by rewriting the file, while it names its owner. */
function holding(path: string, owner: string, ttlMs: number, fresh: () => LeaseFile): JournalLease {
  return renewedLease({
    owner,
    ttlMs,
    renew: async () => {
      const held = await readLease(path);
      if (held?.owner !== owner) return false;
      // Written aside and renamed over, so a reader never sees half a lease.
      const next = `${path}.${process.pid}.renew`;
      await writeFile(next, JSON.stringify(fresh()));
      await rename(next, path);
      return true;
    },
    release: async () => {
      const held = await readLease(path);
      if (held?.owner === owner) await unlink(path).catch(() => undefined);
    },
    lost: () => new PromoReviewError({ code: JOURNAL_BUSY, message: `The lease on ${path} was taken over` }),
  });
}
