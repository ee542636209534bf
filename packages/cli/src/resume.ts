/**
 * Where `promo-review upload` remembers unfinished uploads, so the same command run again after
 * Ctrl-C, a crash or a reboot continues from the byte the service acknowledged.
 */
import { join } from "node:path";
import { fileResumeStore, userCacheDirectory } from "@promo-review/upload-chunker/node";

/** The variable that moves the state files elsewhere (a CI cache, a shared volume). */
export const CACHE_DIR_VARIABLE = "PROMO_REVIEW_CACHE_DIR";

/**
 * The directory of the upload state files: `$PROMO_REVIEW_CACHE_DIR/uploads` when set, else `uploads`
 * in the user's cache directory (`$XDG_CACHE_HOME/promo-review`, `~/.cache/promo-review`, or the
 * platform's equivalent).
 */
export function uploadStateDirectory(env: Record<string, string | undefined>): string {
  const chosen = env[CACHE_DIR_VARIABLE]?.trim();
  return join(chosen || userCacheDirectory({ env }), "uploads");
}

/** The file-backed resume store for this run's environment. */
export function cliResumeStore(env: Record<string, string | undefined>) {
  return fileResumeStore({ directory: uploadStateDirectory(env) });
}
