/**
 * Independent versions: on a temporary copy of the workspace's manifests and changesets config
 * (outside the repository), a changeset for one package, then `changeset version`, bumps that package
 * and the packages whose dependency (or peer dependency) range on a bumped package no longer admits its
 * new version (each such dependent is released as a patch, transitively), and nothing else: a version
 * still inside a dependent's `workspace:^` range leaves the dependent alone, and packages that only use
 * it in development (the simulator, in every package's tests) are not released. The expectation is
 * computed from the manifests and versions, so it follows the workspace as it grows and is released.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Manifest, ROOT } from "./harness/workspace.ts";

const CHANGESET = join(ROOT, "node_modules", ".bin", "changeset");

/** Every workspace package's manifest, by folder. */
function workspaceManifests(root: string): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  for (const dir of readdirSync(join(root, "packages"))) {
    try {
      out.set(dir, JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest);
    } catch {
      // a folder without a package.json is no package
    }
  }
  return out;
}

type Bump = "major" | "minor" | "patch";

function bumped(version: string, bump: Bump): string {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map(Number);
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** Whether `version` satisfies `^base` (semver caret: 0.0.z pins z, 0.y.z pins y, x.y.z pins x). */
function inCaretRange(version: string, base: string): boolean {
  const [v0 = 0, v1 = 0, v2 = 0] = version.split(".").map(Number);
  const [b0 = 0, b1 = 0, b2 = 0] = base.split(".").map(Number);
  if (b0 > 0) return v0 === b0 && (v1 > b1 || (v1 === b1 && v2 >= b2));
  if (b1 > 0) return v0 === 0 && v1 === b1 && v2 >= b2;
  return v0 === 0 && v1 === 0 && v2 === b2;
}

/**
 * The releases one changeset for `name` causes: `name` itself, then every workspace package whose
 * `workspace:^` range (a caret range on the current version) on a released package no longer admits
 * its new version, as a patch, until nothing changes. Other ranges are not used in this workspace.
 */
function withDependents(name: string, bump: Bump, manifests: Map<string, Manifest>): Set<string> {
  const byName = new Map([...manifests.values()].map((m) => [m.name, m] as const));
  const next = new Map([[name, bumped(byName.get(name)!.version, bump)]]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const m of manifests.values()) {
      if (next.has(m.name)) continue;
      const deps = { ...m.dependencies, ...m.peerDependencies };
      const leaves = Object.entries(deps).some(([dep, range]) => {
        const version = next.get(dep);
        if (version === undefined) return false;
        expect(range, `${m.name} -> ${dep}`).toBe("workspace:^");
        return !inCaretRange(version, byName.get(dep)!.version);
      });
      if (leaves) {
        next.set(m.name, bumped(m.version, "patch"));
        grew = true;
      }
    }
  }
  return new Set(next.keys());
}

/** A copy of what changesets reads: root manifest, workspace file, config, and each package's manifest. */
function copyWorkspace(): string {
  const copy = mkdtempSync(join(tmpdir(), "promo-review-changesets-"));
  for (const file of ["package.json", "pnpm-workspace.yaml"]) cpSync(join(ROOT, file), join(copy, file));
  mkdirSync(join(copy, ".changeset"));
  cpSync(join(ROOT, ".changeset", "config.json"), join(copy, ".changeset", "config.json"));
  for (const dir of readdirSync(join(ROOT, "packages"))) {
    try {
      const manifest = readFileSync(join(ROOT, "packages", dir, "package.json"));
      mkdirSync(join(copy, "packages", dir), { recursive: true });
      writeFileSync(join(copy, "packages", dir, "package.json"), manifest);
    } catch {
      // not a package
    }
  }
  // The changelog generator named in config.json resolves from here.
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  writeFileSync(join(copy, ".gitignore"), "node_modules\nstatus.json\n");
  // `changeset status` compares with the base branch (config.json: main), so the copy is a repository.
  const git = (...args: string[]) => {
    const result = spawnSync("git", ["-c", "user.name=proof", "-c", "user.email=proof@localhost", ...args], {
      cwd: copy,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  };
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "workspace manifests");
  return copy;
}

function changeset(copy: string, args: string[]): void {
  const result = spawnSync(CHANGESET, args, { cwd: copy, encoding: "utf8" });
  expect(result.status, `changeset ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

describe("changesets: one package's change bumps it and its dependents only", () => {
  // errors has dependents across the workspace; simulator is depended on by nothing that is published.
  it.for([
    ["@promo-review/errors", "minor"],
    ["@promo-review/simulator", "patch"],
  ] as const)("%s (%s)", ([name, bump]) => {
    copy = copyWorkspace();
    const before = workspaceManifests(copy);
    const expected = withDependents(name, bump, before);
    if (name === "@promo-review/errors") expect(expected.size).toBeGreaterThanOrEqual(3);

    writeFileSync(
      join(copy, ".changeset", "runtime-proof.md"),
      `---\n"${name}": ${bump}\n---\n\nA change.\n`,
    );
    changeset(copy, ["status", "--output", "status.json"]);
    const status = JSON.parse(readFileSync(join(copy, "status.json"), "utf8")) as {
      releases: { name: string; type: string; newVersion: string }[];
    };
    // Packages that only use it in development are listed with type "none": no release.
    const releases = status.releases.filter((r) => r.type !== "none");
    expect(releases.map((r) => r.name).sort()).toEqual([...expected].sort());

    changeset(copy, ["version"]);
    const after = workspaceManifests(copy);
    const bumped = [...before]
      .filter(([dir, m]) => after.get(dir)?.version !== m.version)
      .map(([, m]) => m.name);
    expect(bumped.sort()).toEqual([...expected].sort());
    for (const release of releases) {
      const dir = [...after].find(([, m]) => m.name === release.name)![0];
      expect(after.get(dir)!.version).toBe(release.newVersion);
    }
    // The changed package itself moved by the requested bump type.
    expect(releases.find((r) => r.name === name)?.type).toBe(bump);
  });
});
