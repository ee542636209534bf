/**
 * Starts the user's `@opentelemetry/sdk-node` (found by find-sdk.ts) and hands back its providers.
 * The SDK reads every `OTEL_*` variable itself; the CLI adds only two things, both for safety and
 * clarity: the process resource without `process.command_args` (a command line can hold `--api-key`),
 * and the service name `promo-review` when the variables name none.
 */
import { pathToFileURL } from "node:url";
import type { MeterProviderLike, TracerProviderLike } from "@promo-review/opentelemetry";
import type { FoundSdk } from "./find-sdk.js";
import type { OtelRequest } from "./otel-env.js";

/** The parts of `@opentelemetry/api` the CLI calls (the SDK re-exports the one it uses as `api`). */
export interface OtelApi {
  trace: {
    getTracerProvider(): TracerProviderLike;
    getTracer(name: string, version?: string): OtelTracerWithActive;
  };
  metrics: { getMeterProvider(): MeterProviderLike };
}

/** A tracer that can make its span the active one for a piece of work. */
export interface OtelTracerWithActive {
  startActiveSpan<T>(
    name: string,
    options: { kind?: number; attributes?: Record<string, string | number | boolean> },
    work: (span: OtelActiveSpan) => T,
  ): T;
}

/** What the CLI does with its own span. */
export interface OtelActiveSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

interface ResourceDetector {
  detect(config?: unknown): { attributes?: Record<string, unknown> };
}

interface SdkModule {
  NodeSDK: new (config?: Record<string, unknown>) => { start(): void; shutdown(): Promise<void> };
  api: OtelApi;
  resources?: Record<string, ResourceDetector | undefined>;
}

/** The SDK, started. */
export interface StartedSdk {
  /** The API the SDK registered its providers with. */
  api: OtelApi;
  /** Given only when a traces exporter is configured (else no span code runs at all). */
  tracerProvider?: TracerProviderLike;
  /** Given only when a metrics exporter is configured. */
  meterProvider?: MeterProviderLike;
  /** Flushes and stops it; resolves `false` when that took longer than `deadlineMs` or failed. */
  shutdown(deadlineMs: number): Promise<boolean>;
}

/** The detectors `OTEL_NODE_RESOURCE_DETECTORS` names, by the SDK's names (default env, process, host). */
const DETECTORS: Record<string, string> = {
  env: "envDetector",
  host: "hostDetector",
  os: "osDetector",
  process: "processDetector",
  serviceinstance: "serviceInstanceIdDetector",
};

/** The process detector without the command line: `--api-key` and `--webhook-secret` would be in it. */
function withoutCommandLine(detector: ResourceDetector): ResourceDetector {
  return {
    detect(config) {
      const { attributes = {} } = detector.detect(config);
      const { "process.command_args": _args, "process.command_line": _line, ...kept } = attributes;
      return { attributes: kept };
    },
  };
}

/** The resource detectors the SDK would use, with the process one made safe. */
function resourceDetectors(
  resources: SdkModule["resources"],
  env: Record<string, string | undefined>,
): ResourceDetector[] | undefined {
  if (!resources) return undefined;
  const names = (env["OTEL_NODE_RESOURCE_DETECTORS"]?.trim() || "env,process,host")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes("none")) return [];
  const chosen = names.includes("all") ? Object.keys(DETECTORS) : names.filter((name) => name in DETECTORS);
  return chosen.flatMap((name) => {
    const detector = resources[DETECTORS[name]!];
    if (!detector) return [];
    return [name === "process" ? withoutCommandLine(detector) : detector];
  });
}

/** Whether the variables name the service (else the CLI names it `promo-review`). */
function namesService(env: Record<string, string | undefined>): boolean {
  return (
    Boolean(env["OTEL_SERVICE_NAME"]?.trim()) ||
    /(^|,)\s*service\.name\s*=/.test(env["OTEL_RESOURCE_ATTRIBUTES"] ?? "")
  );
}

/** Loads the SDK from `found.entry` and starts it; throws when it cannot be loaded or started. */
export async function startOtelSdk(
  found: FoundSdk,
  request: Extract<OtelRequest, { asked: true }>,
  env: Record<string, string | undefined>,
): Promise<StartedSdk> {
  const loaded = (await import(pathToFileURL(found.entry).href)) as Partial<SdkModule> & {
    default?: Partial<SdkModule>;
  };
  // The SDK is CommonJS today: its exports are named ones or, for another build, on `default`.
  const NodeSDK = loaded.NodeSDK ?? loaded.default?.NodeSDK;
  const api = loaded.api ?? loaded.default?.api;
  if (!NodeSDK || !api) throw new Error(`${found.entry} has no NodeSDK or api export`);
  const detectors = resourceDetectors(loaded.resources ?? loaded.default?.resources, env);
  const sdk = new NodeSDK({
    ...(detectors ? { resourceDetectors: detectors } : {}),
    ...(namesService(env) ? {} : { serviceName: "promo-review" }),
  });
  sdk.start();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    api,
    ...(request.traces.exporters.length > 0 ? { tracerProvider: api.trace.getTracerProvider() } : {}),
    ...(request.metrics.exporters.length > 0 ? { meterProvider: api.metrics.getMeterProvider() } : {}),
    shutdown: (deadlineMs) =>
      Promise.race([
        sdk.shutdown().then(
          () => true,
          () => false,
        ),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), deadlineMs);
          // The deadline must never be what keeps the process alive.
          timer.unref?.();
        }),
      ]).finally(() => clearTimeout(timer)),
  };
}
