import type { BrowserContext } from "playwright-core";

/** Where the tests and benchmarks expect Chromium (Debian's package puts it there). */
export declare const CHROMIUM_PATH: string;

/** Headless Chromium with a fresh profile, removed on close. */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts headless `/usr/bin/chromium` (playwright-core) with a fresh profile and no background traffic;
 * `timeoutMs` bounds the launch (playwright's default otherwise).
 */
export declare function launchChromium(options?: { timeoutMs?: number }): Promise<LaunchedChromium>;
