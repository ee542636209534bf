/**
 * doctor's `tracing` check: off (no `OTEL_*` variable asks for it), on (the SDK found, its version,
 * where each signal goes), or asked for but not installed (with the install command). Header values of
 * `OTEL_EXPORTER_OTLP_HEADERS` are credentials: only their names are shown.
 */
import type { Check } from "../doctor.js";
import { findOtelSdk, OTEL_SDK_INSTALL, OTEL_SDK_PACKAGE, sdkSearchRoots } from "./find-sdk.js";
import { describePlan, otelRequest } from "./otel-env.js";

/** The check, from the process's environment and working directory. */
export function tracingCheck(options: { env: Record<string, string | undefined>; cwd: string }): Check {
  const request = otelRequest(options.env);
  if (!request.asked) {
    return {
      id: "tracing",
      status: "skip",
      message: `off: ${request.reason}`,
      advice: `to trace, install ${OTEL_SDK_PACKAGE} and set OTEL_EXPORTER_OTLP_ENDPOINT (see the README's Tracing section)`,
    };
  }
  const where = `traces: ${describePlan(request.traces)}; metrics: ${describePlan(request.metrics)}`;
  const headers =
    request.headerNames.length > 0
      ? `; OTLP headers: ${request.headerNames.join(", ")} (values not shown)`
      : "";
  const found = findOtelSdk(sdkSearchRoots(options));
  if (!found) {
    return {
      id: "tracing",
      status: "warn",
      message: `asked for but off: ${OTEL_SDK_PACKAGE} is not installed (${where}${headers})`,
      advice: `run \`${OTEL_SDK_INSTALL}\` in this project, or install it globally beside promo-review`,
    };
  }
  return {
    id: "tracing",
    status: "ok",
    message: `on: ${OTEL_SDK_PACKAGE} ${found.version} (from ${found.from}); ${where}${headers}`,
  };
}
