/**
 * Where a command-line tool keeps its cache on each platform. Node-only (it reads the environment and
 * the home directory), so it sits beside the file-backed store on the `./node` sub-path.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** What decides the cache directory; each defaults to this process's. */
export interface CacheDirectoryOptions {
  /** The application's directory name. Default `promo-review`. */
  app?: string;
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * The user's cache directory for `app`: `$XDG_CACHE_HOME/<app>` when that variable holds an absolute
 * path (the XDG rule, honoured on every platform because people set it on purpose), else
 * `~/Library/Caches/<app>` on macOS, `%LOCALAPPDATA%\<app>\Cache` on Windows and `~/.cache/<app>`
 * elsewhere.
 */
export function userCacheDirectory(options: CacheDirectoryOptions = {}): string {
  const app = options.app ?? "promo-review";
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.home ?? homedir();
  const xdg = env["XDG_CACHE_HOME"]?.trim();
  // A relative XDG_CACHE_HOME is invalid by the XDG spec and would scatter state per working directory.
  if (xdg && isAbsolute(xdg)) return join(xdg, app);
  if (platform === "darwin") return join(home, "Library", "Caches", app);
  if (platform === "win32") {
    const local = env["LOCALAPPDATA"]?.trim() || join(home, "AppData", "Local");
    return join(local, app, "Cache");
  }
  return join(home, ".cache", app);
}
