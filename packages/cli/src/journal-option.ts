/**
 * What `--journal` names: a file (the default, beside the manifest), or a journal on Redis given as a
 * URL, `redis://[user:password@]host:port[/db]?name=<journal>&lease-ttl=<seconds>` (`rediss://` for
 * TLS), so runners on several machines share one journal. `name` is the journal's name in Redis
 * (default for `batch run`: the manifest's file name); `lease-ttl` how long a runner that died holds
 * the lease (default 30 s), which is also how long a re-run waits for it. Every other query
 * parameter is ioredis's own (`family=6`).
 */
import { basename } from "node:path";
import type { BatchJournal } from "@promo-review/sdk/batch";
import { fileJournal } from "@promo-review/sdk/node";
import { UsageError } from "./usage-error.js";

/** A journal opened for a command, and what to close after it. */
export interface OpenedJournal {
  journal: BatchJournal;
  /** Where it is, as told to the user (a Redis URL without its password). */
  where: string;
  /** How long a run waits for another runner's lease: a dead runner's, on Redis, frees within its TTL. */
  leaseWaitMs?: number | undefined;
  /** Closes the journal, then the connection it opened. */
  close(): Promise<void>;
}

const DEFAULT_LEASE_TTL_S = 30;
/** The journal's parameters in the URL, taken out before ioredis reads the rest as its options. */
const OWN_PARAMETERS = ["name", "lease-ttl"];

/** Whether `spec` is a journal on Redis rather than a file. */
export const isRedisJournal = (spec: string): boolean => /^rediss?:\/\//i.test(spec);

/**
 * Opens the journal `spec` names (see the file's comment); `manifestPath` gives a file journal's
 * default path and a Redis journal's default name.
 */
export async function openJournal(spec: string | undefined, manifestPath?: string): Promise<OpenedJournal> {
  if (spec === undefined || !isRedisJournal(spec)) {
    const path = spec ?? `${manifestPath}.journal`;
    const journal = fileJournal(path);
    return { journal, where: path, close: () => journal.close() };
  }
  const url = new URL(spec);
  const name =
    url.searchParams.get("name") ?? (manifestPath === undefined ? undefined : basename(manifestPath));
  if (!name) {
    throw new UsageError("A journal on Redis needs its name", [
      {
        field: "--journal",
        message: "add ?name=<journal> to the URL (batch run uses the manifest's file name)",
      },
    ]);
  }
  const ttl = Number(url.searchParams.get("lease-ttl") ?? DEFAULT_LEASE_TTL_S);
  if (!(ttl > 0 && ttl <= 3600)) {
    throw new UsageError("The journal's lease-ttl is out of range", [
      { field: "--journal", message: "lease-ttl is a number of seconds above 0 and at most 3600" },
    ]);
  }
  for (const parameter of OWN_PARAMETERS) url.searchParams.delete(parameter);
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  // Loaded only for a Redis journal: every other command starts without it.
  const [{ Redis }, { redisStore, storeJournal }] = await Promise.all([
    import("ioredis"),
    import("@promo-review/sdk/redis"),
  ]);
  // One try per command: a Redis that is down fails the journal (closed) within the store's deadline.
  const client = new Redis(url.toString(), { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  const journal = storeJournal(redisStore(client), { name, leaseTtlMs: ttl * 1000 });
  return {
    journal,
    where: `${shown.toString()}${shown.search ? "&" : "?"}name=${encodeURIComponent(name)}`,
    leaseWaitMs: ttl * 1000 + 1000,
    close: async () => {
      try {
        await journal.close();
      } finally {
        client.disconnect();
      }
    },
  };
}
