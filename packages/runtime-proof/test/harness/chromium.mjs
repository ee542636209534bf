// Headless Chromium as this package's tests and benchmarks start it. Plain JavaScript (typed by
// chromium.d.mts) so that a benchmark, run by node without a TypeScript loader, starts the very same
// browser as the tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Where the tests and benchmarks expect Chromium (Debian's package puts it there). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Starts headless `/usr/bin/chromium` (playwright-core) with a fresh profile and no background traffic. */
export async function launchChromium({ timeoutMs } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "proof-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
