/**
 * Issue 34: `@promo-review/opentelemetry` owns OpenTelemetry's vocabulary. No other published package
 * names one of its attributes in code (comments may explain what the adapter makes of a fact): the
 * source of every other package, tests left out, is read for the adapter's names. The cli alone
 * names its own root span's `promo_review.cli.*` attributes: that span is the command itself, made
 * with the user's OpenTelemetry SDK when the `OTEL_*` variables ask for it, not an SDK operation.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADAPTER_NAMES } from "./harness/sizes.ts";
import { publishablePackages } from "./harness/workspace.ts";

/** The adapter, and the cli's own root span (above). */
const OWNERS = new Set(["@promo-review/opentelemetry", "@promo-review/cli"]);

/** Every source file under `dir` but the tests and test helpers. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    const test = /\.test\.ts$/.test(name) || name.startsWith("test-");
    return name.endsWith(".ts") && !test ? [path] : [];
  });
}

/** `text` without its comments: block comments, and line comments at a line's start or after code. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
}

/** The adapter's names `text`'s code holds. */
const namesIn = (text: string) => ADAPTER_NAMES.filter((name) => code(text).includes(name));

describe("no package but the adapter names OpenTelemetry's attributes", () => {
  for (const pkg of publishablePackages().filter((p) => !OWNERS.has(p.manifest.name))) {
    it(`${pkg.manifest.name}: none of ${ADAPTER_NAMES.join(", ")} in its code`, () => {
      const named = sources(join(pkg.path, "src")).flatMap((file) =>
        namesIn(readFileSync(file, "utf8")).map((name) => `${file}: ${name}`),
      );
      expect(named).toEqual([]);
    });
  }

  it("the check finds a name in code, and none in a comment", () => {
    expect(namesIn(`span.set({ "url.template": template });`)).toEqual(["url.template"]);
    expect(namesIn(`const m = "promo_review.budget.wait";`)).toEqual(["promo_review."]);
    expect(namesIn(`/** the adapter's \`url.template\` */\nconst x = 1; // promo_review.retry`)).toEqual([]);
    expect(namesIn(`const u = "http://127.0.0.1"; // http.request.method`)).toEqual([]);
  });
});
