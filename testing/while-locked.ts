/**
 * For the deno scripts of the Deno KV suites, where several deno processes open one local KV file at
 * the same moment: SQLite may answer "database is locked" to the open itself (the stores retry their
 * own commits; opening is the script's to retry). Written without Deno's types so that Node's
 * typecheck reads it too.
 */

/** Runs `open` again while it fails with "database is locked", for at most `ms` (then throws that error). */
export async function whileLocked<T>(open: () => Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if (!String(error).includes("database is locked") || Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}
