/**
 * Issue 26: the packages report to OpenTelemetry through a provider the user passes in, and never
 * import `@opentelemetry/api` (or any OpenTelemetry package) at run time: no optional peer to resolve,
 * nothing for a bundler to trip on. The built files of every published package are read for an
 * import of one; the cli alone may load the OpenTelemetry Node SDK, and only by a dynamic `import()`
 * when the user's `OTEL_*` variables ask for it. The tracing scenario (runtime-suite.ts) proves that a
 * provider passed in works in every runtime.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { publishablePackages } from "./harness/workspace.ts";

/** Every `.js` file under `dir`. */
function scripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return scripts(path);
    return name.endsWith(".js") ? [path] : [];
  });
}

/** The OpenTelemetry specifiers a file imports statically (`import ... from`, `export ... from`, `require`). */
function staticOtelImports(text: string): string[] {
  const found = text.matchAll(
    /(?:\bfrom\s*|\brequire\s*\(\s*|^\s*import\s*)["'](@opentelemetry\/[^"']+)["']/gm,
  );
  return [...found].map((match) => match[1] as string);
}

/** The OpenTelemetry specifiers a file imports dynamically, written out literally. */
function dynamicOtelImports(text: string): string[] {
  return [...text.matchAll(/\bimport\s*\(\s*["'](@opentelemetry\/[^"']+)["']/g)].map(
    (match) => match[1] as string,
  );
}

describe("no published package imports OpenTelemetry at run time", () => {
  for (const pkg of publishablePackages()) {
    it(`${pkg.manifest.name}: no static import of @opentelemetry/*, and none declared as a dependency`, () => {
      const imported = scripts(join(pkg.path, "dist")).flatMap((file) =>
        staticOtelImports(readFileSync(file, "utf8")).map((specifier) => `${file}: ${specifier}`),
      );
      expect(imported).toEqual([]);
      const declared = Object.keys({
        ...pkg.manifest.dependencies,
        ...pkg.manifest.peerDependencies,
        ...pkg.manifest.optionalDependencies,
      }).filter((name) => name.startsWith("@opentelemetry/"));
      expect(declared).toEqual([]);
      if (pkg.manifest.name !== "@promo-review/cli") {
        const dynamic = scripts(join(pkg.path, "dist")).flatMap((file) =>
          dynamicOtelImports(readFileSync(file, "utf8")),
        );
        expect(dynamic).toEqual([]);
      }
    });
  }

  it("the check finds an import where there is one", () => {
    expect(staticOtelImports(`import { trace } from "@opentelemetry/api";`)).toEqual(["@opentelemetry/api"]);
    expect(staticOtelImports(`const api = require("@opentelemetry/api");`)).toEqual(["@opentelemetry/api"]);
    expect(staticOtelImports(`import "@opentelemetry/api";`)).toEqual(["@opentelemetry/api"]);
    expect(staticOtelImports(`export * from '@opentelemetry/api';`)).toEqual(["@opentelemetry/api"]);
    expect(dynamicOtelImports(`await import("@opentelemetry/sdk-node")`)).toEqual([
      "@opentelemetry/sdk-node",
    ]);
    expect(staticOtelImports(`// OpenTelemetry Context Key SPAN`)).toEqual([]);
  });
});
