/**
 * What every journal's lease does while held, whatever keeps it (a file, a store): renew it every
 * third of its time to live, one renewal at a time, and abort its `signal` the first time a renewal
 * finds it lost (another runner took it over), so the run stops at once.
 */
import type { JournalLease } from "./journal.js";

/** How a lease is kept: the journal's own renewal, release and words for a lost lease. */
export interface LeaseKeeping {
  owner: string;
  ttlMs: number;
  /** Renews the lease; answers false when it is no longer this owner's. May throw: tried again next time. */
  renew(): Promise<boolean>;
  /** Gives the lease back (only called while it was not found lost). */
  release(): Promise<void>;
  /** The reason the signal aborts with once the lease is lost. */
  lost(): Error;
}

/** The lease while held: renewed every `ttlMs / 3`; its signal aborted once a renewal finds it lost. */
export function renewedLease(keeping: LeaseKeeping): JournalLease {
  const lost = new AbortController();
  let renewing: Promise<void> = Promise.resolve();
  const renew = async () => {
    if (lost.signal.aborted || (await keeping.renew())) return;
    clearInterval(timer);
    lost.abort(keeping.lost());
  };
  // A renewal that fails (a full disk, a store that is down) is tried again next time.
  const timer = setInterval(() => {
    renewing = renewing.then(renew).catch(() => undefined);
  }, keeping.ttlMs / 3);
  // The renewal must not keep a process alive that has nothing else to do.
  (timer as { unref?: () => void }).unref?.();
  return {
    owner: keeping.owner,
    signal: lost.signal,
    release: async () => {
      clearInterval(timer);
      await renewing;
      if (!lost.signal.aborted) await keeping.release();
    },
  };
}
