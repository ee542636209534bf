/**
 * A small public surface (issue 17): every entry point of every published package exports only names
 * its package README documents, so a name users can import is a name they can read about, and an
 * internal helper cannot slip into the API unnoticed. Entry points whose path says `internal` are for
 * the SDK's own packages and are exempt (their README says so). Only runtime names are checked here;
 * the TypeDoc build (api-docs.test.ts) covers the types.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { publishablePackages } from "./harness/workspace.ts";

/** The import specifiers of a package's public entry points, from its exports map. */
function publicEntries(name: string, exportsMap: Record<string, unknown> | undefined): string[] {
  return Object.keys(exportsMap ?? { ".": "" })
    .filter((path) => path !== "./package.json" && !path.includes("internal"))
    .map((path) => (path === "." ? name : `${name}${path.slice(1)}`));
}

/**
 * Whether the README names `name` as code: inline (`name`, `name(`, `x.name`), or as an identifier in
 * one of its fenced examples (which the README tests run).
 */
function documents(readme: string, name: string): boolean {
  const escaped = name.replace(/\$/g, "\\$");
  if (new RegExp(`\`(?:[\\w$.]+\\.)?${escaped}(?![\\w$])`).test(readme)) return true;
  const examples = readme.match(/^```[\s\S]*?^```/gm) ?? [];
  const identifier = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`);
  return examples.some((example) => identifier.test(example));
}

describe("every entry point exports only what its README documents", () => {
  for (const pkg of publishablePackages()) {
    const readme = readFileSync(join(pkg.path, "README.md"), "utf8");
    for (const entry of publicEntries(pkg.manifest.name, pkg.manifest.exports)) {
      it(`${entry}`, async () => {
        const module = (await import(entry)) as Record<string, unknown>;
        const undocumented = Object.keys(module).filter(
          (name) => name !== "default" && !documents(readme, name),
        );
        expect(undocumented, `exported by ${entry} but not named in ${pkg.dir}/README.md`).toEqual([]);
      });
    }
  }
});
