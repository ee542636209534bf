/** The workspace's packages as the published-shape tests see them, and the tools they run. */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { PACKAGE_DIR } from "./bundle.ts";

export const ROOT = resolve(PACKAGE_DIR, "..", "..");
export const PNPM_VERSION = "10.34.9";
/** One `pnpm pack`'s deadline (through npx it may first fetch pnpm). */
const PACK_DEADLINE_MS = 300_000;

/** A package.json as far as these tests read it. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
}

export interface WorkspacePackage {
  /** Folder name under packages/. */
  dir: string;
  path: string;
  manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every package under packages/ that is not private, i.e. that would be published. */
export function publishablePackages(): WorkspacePackage[] {
  const root = join(ROOT, "packages");
  return readdirSync(root)
    .filter((dir) => existsSync(join(root, dir, "package.json")))
    .map((dir) => ({ dir, path: join(root, dir), manifest: readManifest(join(root, dir)) }))
    .filter((p) => p.manifest.private !== true)
    .sort((a, b) => a.dir.localeCompare(b.dir));
}

let pnpm: [string, string[]] | undefined;
/** The pnpm that runs this workspace: the one on PATH when it is the pinned version, else through npx. */
export function pnpmCommand(): [string, string[]] {
  if (pnpm) return pnpm;
  const onPath = spawnSync("pnpm", ["--version"], {
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  const pinned = onPath.status === 0 && onPath.stdout.trim() === PNPM_VERSION;
  pnpm = pinned ? ["pnpm", []] : ["npx", ["-y", `pnpm@${PNPM_VERSION}`]];
  return pnpm;
}

/** `pnpm pack` of one package into `destination` (workspace: ranges become real versions); returns the tarball. */
export async function pack(pkg: WorkspacePackage, destination: string): Promise<string> {
  const out = join(destination, pkg.dir);
  mkdirSync(out, { recursive: true });
  const [command, prefix] = pnpmCommand();
  // `npx -y pnpm@…` may reach the registry: a deadline, killed by pid, and a failure that says so.
  await promisify(execFile)(command, [...prefix, "pack", "--pack-destination", out], {
    cwd: pkg.path,
    timeout: PACK_DEADLINE_MS,
    killSignal: "SIGKILL",
  }).catch((error: { killed?: boolean; stderr?: string; message?: string }) => {
    const tail = String(error.stderr ?? error.message ?? "")
      .trim()
      .split("\n")
      .slice(-15)
      .join("\n");
    throw new Error(
      error.killed
        ? `pnpm pack of ${pkg.manifest.name} did not finish in ${PACK_DEADLINE_MS / 1000} s (killed); last lines:\n${tail}`
        : `pnpm pack of ${pkg.manifest.name} failed; last lines:\n${tail}`,
    );
  });
  const tarballs = readdirSync(out).filter((f) => f.endsWith(".tgz"));
  if (tarballs.length !== 1)
    throw new Error(`pnpm pack of ${pkg.manifest.name} wrote ${tarballs.join(", ")}`);
  return join(out, tarballs[0]!);
}

/** Packs every package, two at a time (the machine has two cores); returns tarballs by package name. */
export async function packAll(
  packages: WorkspacePackage[],
  destination: string,
): Promise<Map<string, string>> {
  const tarballs = new Map<string, string>();
  const queue = [...packages];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) {
      tarballs.set(pkg.manifest.name, await pack(pkg, destination));
    }
  };
  await Promise.all([worker(), worker()]);
  return tarballs;
}
