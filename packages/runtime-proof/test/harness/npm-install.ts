/**
 * `npm install` of a consumer project outside the workspace, with the registry configuration CI gives
 * through the environment kept, and deadlines: npm's own per-request ones and a process deadline
 * after which npm is killed by its pid. A failure names its cause and ends with npm's last log lines,
 * within minutes, instead of a nested npm retrying an unverifiable registry for twenty.
 */
import { spawn } from "node:child_process";

/**
 * npm settings given through the environment that say which registry and which certificates (and the
 * proxy on the way): a CI system may give them so, and an npm without them cannot reach its registry.
 * npm reads `npm_config_<name>` with `-` or `_` in the name, in any case.
 */
const REGISTRY_SETTINGS =
  /^npm_config_(registry|@[^:]+:registry|cafile|ca|cert|key|strict[-_]ssl|proxy|https[-_]proxy|no[-_]?proxy|userconfig|\/\/.*)$/i;

/**
 * The environment for a plain npm run outside the workspace: no `npm_*`/`pnpm_*` inherited from pnpm
 * (its `npm_config_*` would turn a plain install into a workspace-flavoured one), except the registry,
 * certificate and proxy settings above. `NODE_EXTRA_CA_CERTS` and `HTTP(S)_PROXY` are kept as any
 * other variable is. The cache is this suite's own.
 */
export function plainNpmEnv(cache: string, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(from)) {
    if ((!/^npm_/i.test(key) && !/^pnpm_/i.test(key)) || REGISTRY_SETTINGS.test(key)) env[key] = value;
  }
  env["npm_config_cache"] = cache;
  return env;
}

/** Options of {@link npmInstall}. */
export interface NpmInstallOptions {
  /** The project folder (its package.json is installed). */
  cwd: string;
  /** What is installed, for the failure message ("the cli consumer"). */
  what: string;
  env: NodeJS.ProcessEnv;
  /** Whole-install deadline; npm is killed by its pid when it passes. Default 300 000 ms. */
  deadlineMs?: number | undefined;
  /** npm's per-request timeout (`--fetch-timeout`). Default 60 000 ms. */
  fetchTimeoutMs?: number | undefined;
  /** npm's retries per request (`--fetch-retries`). Default 2. */
  fetchRetries?: number | undefined;
}

/** How many of npm's last log lines a failure quotes. */
const TAIL_LINES = 15;

/**
 * Runs `npm install` in `cwd` and resolves when it succeeds; otherwise rejects with an error that says
 * whether npm failed (its exit code) or passed the deadline, and quotes npm's last log lines.
 */
export function npmInstall(options: NpmInstallOptions): Promise<void> {
  const deadlineMs = options.deadlineMs ?? 300_000;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 60_000;
  const args = [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    // `http` logs each fetch, so a stuck or refused registry shows in the quoted tail.
    "--loglevel=http",
    `--fetch-timeout=${fetchTimeoutMs}`,
    `--fetch-retries=${options.fetchRetries ?? 2}`,
    `--fetch-retry-mintimeout=${Math.min(10_000, fetchTimeoutMs)}`,
    `--fetch-retry-maxtimeout=${Math.min(30_000, fetchTimeoutMs)}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    const collect = (chunk: Buffer) => {
      // Only the tail is ever quoted: keep the last 64 KiB.
      log = (log + chunk.toString("utf8")).slice(-65_536);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const tail = () => {
      const lines = log.trimEnd().split("\n").slice(-TAIL_LINES);
      return lines.length > 0 && lines[0] !== "" ? lines.join("\n") : "(npm logged nothing)";
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
    }, deadlineMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`npm install of ${options.what} could not start: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(
          new Error(
            `npm install of ${options.what} did not finish in ${Math.round(deadlineMs / 1000)} s (killed); last lines of npm's log:\n${tail()}`,
          ),
        );
      } else if (code !== 0) {
        reject(
          new Error(
            `npm install of ${options.what} failed (exit ${code ?? signal}); last lines of npm's log:\n${tail()}`,
          ),
        );
      } else resolve();
    });
  });
}
