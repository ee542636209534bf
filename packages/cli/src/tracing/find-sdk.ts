/**
 * Finds the OpenTelemetry Node SDK the user installed. The CLI never depends on it: it is looked for
 * where a user would have put it, first in the project of the working directory (`npm install
 * @opentelemetry/sdk-node` there), then beside the CLI itself (a global install, `npx -p`), the way
 * Node resolves a package from a file in each of those directories.
 */
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package that turns `OTEL_*` variables into exporters. */
export const OTEL_SDK_PACKAGE = "@opentelemetry/sdk-node";

/** What to run to install it. */
export const OTEL_SDK_INSTALL = `npm install ${OTEL_SDK_PACKAGE}`;

/**
 * Directories to look for the SDK from, instead of the working directory and the CLI's own: a list
 * separated like `PATH` (for an SDK kept in a tools directory of its own).
 */
export const OTEL_SDK_FROM_VARIABLE = "PROMO_REVIEW_OTEL_SDK_FROM";

/** The SDK, found. */
export interface FoundSdk {
  /** The file Node loads for the package. */
  entry: string;
  /** Its version (from its package.json), or `unknown`. */
  version: string;
  /** The directory it was resolved from. */
  from: string;
}

/** Where the SDK is looked for, in order. */
export function sdkSearchRoots(options: { cwd: string; env: Record<string, string | undefined> }): string[] {
  const chosen = options.env[OTEL_SDK_FROM_VARIABLE]?.trim();
  if (chosen) return chosen.split(delimiter).filter(Boolean);
  return [options.cwd, dirname(fileURLToPath(import.meta.url))];
}

/** The SDK as Node resolves it from the first of `roots` that has it, or `undefined`. */
export function findOtelSdk(roots: readonly string[]): FoundSdk | undefined {
  for (const from of roots) {
    // A require anchored on a (non-existent) file in the directory resolves as a module there would.
    const require = createRequire(join(from, "noop.js"));
    let entry: string;
    try {
      entry = require.resolve(OTEL_SDK_PACKAGE);
    } catch {
      continue;
    }
    let version = "unknown";
    try {
      version = (require(`${OTEL_SDK_PACKAGE}/package.json`) as { version?: string }).version ?? version;
    } catch {
      // A package whose exports hide package.json: found all the same, version unknown.
    }
    return { entry, version, from };
  }
  return undefined;
}
