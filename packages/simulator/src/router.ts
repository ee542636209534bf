/**
 * A tiny router: `:name` path parameters, exact method match. Unknown routes are 404 NOT_FOUND (the
 * simulator does not distinguish 405).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply } from "./envelope.js";
import type { SimulatorState } from "./state.js";

/** What a handler gets. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  service: "main" | "files";
  method: string;
  path: string;
  /** The query exactly as sent (without `?`), for byte-exact comparisons. */
  rawQuery: string;
  params: Record<string, string>;
  correlationId: string;
  state: SimulatorState;
}

/** A route handler. */
export type Handler = (ctx: RequestContext) => Promise<Reply> | Reply;

/** One route. */
export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
}

/** Finds the route for a request and its path parameters. */
export function findRoute(
  routes: Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split("/");
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.pattern.split("/");
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((segment, i) => {
      const actual = parts[i] ?? "";
      if (segment.startsWith(":")) {
        params[segment.slice(1)] = decodeURIComponent(actual);
        return actual.length > 0;
      }
      return segment === actual;
    });
    if (ok) return { route, params };
  }
  return undefined;
}

/** A 200 reply. */
export function ok(body: Record<string, unknown>): Reply {
  return { status: 200, body };
}

/** A 201 reply. */
export function created(body: Record<string, unknown>): Reply {
  return { status: 201, body };
}
