/**
 * What the standard `OTEL_*` variables ask of the command: nothing (tracing off), or traces and/or
 * metrics with their exporters and endpoints. Read the way `@opentelemetry/sdk-node` reads them, so
 * that the CLI starts the SDK exactly when the SDK would export something, and `doctor` can say what.
 * Pure: no import of OpenTelemetry here.
 */

type Environment = Record<string, string | undefined>;

/** What one signal (traces or metrics) will do. */
export interface SignalPlan {
  /** The exporters named (`otlp`, `console`, `zipkin`, `prometheus`...); empty when the signal is off. */
  exporters: string[];
  /** Where OTLP sends it (no credentials, no query), when an exporter is `otlp`. */
  endpoint?: string;
  /** The OTLP protocol: `http/protobuf` (the SDK's default), `http/json` or `grpc`. */
  protocol?: string;
}

/** The variables' verdict. */
export type OtelRequest =
  | { asked: false; reason: string }
  | {
      asked: true;
      traces: SignalPlan;
      metrics: SignalPlan;
      /** The names in `OTEL_EXPORTER_OTLP_*HEADERS` (values are credentials: never kept). */
      headerNames: string[];
    };

/** The exporter variables: one naming an exporter (not `none`) asks for its signal. */
const EXPORTERS = ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"] as const;
/** The endpoint variables: one set asks for telemetry (with the SDK's default exporters, OTLP). */
const ENDPOINTS = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
] as const;

function value(env: Environment, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

/** A comma-separated list, as the SDK's `getStringListFromEnv` reads it. */
function list(env: Environment, name: string): string[] | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const items = raw
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/**
 * A URL as it may be printed: scheme, host and path. User information and the query are dropped (an
 * endpoint can carry a token in either); `undefined` when it is not a URL.
 */
export function shownEndpoint(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    const hidden = url.username || url.password || url.search ? " (credentials and query not shown)" : "";
    return `${url.protocol}//${url.host}${url.pathname}${hidden}`;
  } catch {
    return undefined;
  }
}

/** Where OTLP sends `signal`, by the specification's rules (a signal's own endpoint is used as is). */
function otlpEndpoint(env: Environment, signal: "traces" | "metrics", protocol: string): string {
  const own = value(env, `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`);
  if (own) return shownEndpoint(own) ?? "set, but not a URL";
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const grpc = protocol === "grpc";
  const root = base
    ? (shownEndpoint(base) ?? "set, but not a URL")
    : grpc
      ? "http://localhost:4317"
      : "http://localhost:4318";
  // Over HTTP the base endpoint gets the signal's path appended; gRPC uses it as it is.
  if (grpc || root.startsWith("set,")) return root;
  return `${root.replace(/\/$/, "")}/v1/${signal}`;
}

function plan(env: Environment, signal: "traces" | "metrics"): SignalPlan {
  const named = list(env, `OTEL_${signal.toUpperCase()}_EXPORTER`)?.filter((name) => name !== "null");
  // Unset means `otlp` for both signals, as in the SDK. The SDK ignores a `none` for traces when
  // other exporters are named with it, and turns metrics off for any `none`: the same here.
  let exporters = named ?? ["otlp"];
  if (signal === "traces" && exporters[0] === "none" && exporters.length === 1) exporters = [];
  else if (signal === "traces") exporters = exporters.filter((name) => name !== "none");
  else if (exporters.includes("none")) exporters = [];
  if (!exporters.includes("otlp")) return { exporters };
  const protocol =
    value(env, `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_PROTOCOL`) ??
    value(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ??
    "http/protobuf";
  return { exporters, protocol, endpoint: otlpEndpoint(env, signal, protocol) };
}

/** The header names of `OTEL_EXPORTER_OTLP_HEADERS` and its per-signal variants: `name=value,...`. */
function headerNames(env: Environment): string[] {
  const names = new Set<string>();
  for (const variable of [
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
  ]) {
    for (const pair of value(env, variable)?.split(",") ?? []) {
      const name = pair.split("=")[0]?.trim();
      if (name) names.add(decodeURIComponentSafe(name).toLowerCase());
    }
  }
  return [...names];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * What `env` asks for. Telemetry is asked for when an exporter variable names an exporter or an OTLP
 * endpoint is set (the SDK's defaults alone would send to localhost, which nobody asked for), `OTEL_SDK_DISABLED` is
 * not true, and at least one of traces and metrics has an exporter left.
 */
export function otelRequest(env: Environment): OtelRequest {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") {
    return { asked: false, reason: "OTEL_SDK_DISABLED=true" };
  }
  const namesExporter = (name: string) =>
    list(env, name)?.some((exporter) => exporter !== "none" && exporter !== "null") ?? false;
  if (!EXPORTERS.some(namesExporter) && !ENDPOINTS.some((name) => value(env, name))) {
    return {
      asked: false,
      reason: "no OTEL_* variable asks for it (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER...)",
    };
  }
  const traces = plan(env, "traces");
  const metrics = plan(env, "metrics");
  if (traces.exporters.length === 0 && metrics.exporters.length === 0) {
    return { asked: false, reason: "OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER are none" };
  }
  return { asked: true, traces, metrics, headerNames: headerNames(env) };
}

/** One line for a signal's plan: `otlp (http/json) to http://127.0.0.1:4318/v1/traces`, or `off`. */
export function describePlan(signal: SignalPlan): string {
  if (signal.exporters.length === 0) return "off";
  return signal.exporters
    .map((name) => (name === "otlp" ? `otlp (${signal.protocol}) to ${signal.endpoint}` : name))
    .join(", ");
}
