/**
 * CORS for both servers. Browser tests call the simulator cross-origin, so every response allows any
 * origin and exposes the two headers clients read (`X-Correlation-ID`, `Retry-After`).
 */
import type { ServerResponse } from "node:http";

/** Request headers the API uses; a preflight must allow all of them. */
export const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Content-Range",
  "X-External-User-ID",
  "X-External-User-Email",
  "X-Correlation-ID",
  "x-service-workspace-id",
  // W3C trace context, for clients that propagate it (the SDK's `propagateTraceContext`): a browser
  // sends it only when the preflight allows it. The spec does not show CORS; this is our reading.
  "traceparent",
  "tracestate",
];

/** Headers added to every response. */
export function corsHeaders(): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "X-Correlation-ID, Retry-After",
  };
}

/** Answers a preflight `OPTIONS` request (204, no body). */
export function answerPreflight(res: ServerResponse, correlationId: string): void {
  res.writeHead(204, {
    ...corsHeaders(),
    "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": ALLOWED_HEADERS.join(", "),
    "Access-Control-Max-Age": "600",
    "X-Correlation-ID": correlationId,
  });
  res.end();
}
