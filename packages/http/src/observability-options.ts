import type { ConnectionOptions } from "./client.js";

/**
 * The observability and identity options every package client takes and hands to its HTTP client
 * unchanged: `hooks`, `logger`, `appInfo`, the rate `budget`, the `telemetry` observer, and the older `tracerProvider`,
 * `meterProvider` and `propagateTraceContext`.
 */
export type ObservabilityOptions = Pick<
  ConnectionOptions,
  | "hooks"
  | "logger"
  | "appInfo"
  | "budget"
  | "telemetry"
  | "tracerProvider"
  | "meterProvider"
  | "propagateTraceContext"
>;

/** The {@link ObservabilityOptions} set in `options`, ready to spread into `createHttpClient`'s options. */
export function observabilityOf(options: ObservabilityOptions): ObservabilityOptions {
  const picked: ObservabilityOptions = {};
  if (options.hooks) picked.hooks = options.hooks;
  if (options.logger) picked.logger = options.logger;
  if (options.appInfo) picked.appInfo = options.appInfo;
  if (options.budget) picked.budget = options.budget;
  if (options.telemetry) picked.telemetry = options.telemetry;
  if (options.tracerProvider) picked.tracerProvider = options.tracerProvider;
  if (options.meterProvider) picked.meterProvider = options.meterProvider;
  if (options.propagateTraceContext) picked.propagateTraceContext = options.propagateTraceContext;
  return picked;
}
