import type { ConnectionOptions } from "./client.js";

/**
 * The observability and identity options every package client takes and hands to its HTTP client
 * unchanged: `hooks`, `logger`, `appInfo`, the rate `budget` and the `telemetry` observer.
 */
export type ObservabilityOptions = Pick<
  ConnectionOptions,
  "hooks" | "logger" | "appInfo" | "budget" | "telemetry"
>;

/** The {@link ObservabilityOptions} set in `options`, ready to spread into `createHttpClient`'s options. */
export function observabilityOf(options: ObservabilityOptions): ObservabilityOptions {
  const picked: ObservabilityOptions = {};
  if (options.hooks) picked.hooks = options.hooks;
  if (options.logger) picked.logger = options.logger;
  if (options.appInfo) picked.appInfo = options.appInfo;
  if (options.budget) picked.budget = options.budget;
  if (options.telemetry) picked.telemetry = options.telemetry;
  return picked;
}
