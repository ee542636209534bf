/**
 * The two HTTP servers (main API and file service) and the request pipeline every request goes
 * through: correlation id, CORS preflight, control surface, faults, authentication, rate limits,
 * user headers, routing, and the request log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { authenticateFiles, authenticateMain, checkMainUserHeaders } from "./auth.js";
import { answerPreflight } from "./cors.js";
import { ApiError, correlationIdOf, sendError, sendJson, sendReply } from "./envelope.js";
import { applyFault, type Fault } from "./faults.js";
import { fileRoutes } from "./file-service.js";
import { mainRoutes } from "./main-api.js";
import { shapeError, shapeReply, statusOfCode } from "./profile-replies.js";
import { admit, type SlidingWindowLimiter } from "./rate-limit.js";
import { redactHeaders, redactQuery } from "./request-log.js";
import { findRoute, type RequestContext, type Route } from "./router.js";
import { type SimulatorState, secretsOf } from "./state.js";

/** Throws RATE_LIMITED when the key has no room; POST /v1/links needs room in both budgets. */
function enforceRateLimits(limiters: SlidingWindowLimiter[], key: string, now: number): void {
  const verdict = admit(limiters, key, now);
  if (verdict.admitted) return;
  const seconds = verdict.retryAfterMs / 1000;
  throw new ApiError(
    "RATE_LIMITED",
    `Rate limit exceeded; retry after ${seconds} s`,
    [{ type: "retry_info", retryAfterSeconds: seconds }],
    {
      headers: { "Retry-After": String(Math.ceil(seconds)) },
    },
  );
}

/** The authentication and limits that come before routing, per service. */
function guard(ctx: RequestContext): void {
  const { req, state, method, path, correlationId } = ctx;
  if (ctx.service === "files") {
    const principal = authenticateFiles(req, state.credentials, correlationId);
    // Only a variant profile limits initiation (the spec is silent); chunk PUT and status never are.
    if (state.initiationLimiter && method === "POST" && path === "/v1/uploads") {
      enforceRateLimits([state.initiationLimiter], principal.credential, state.now());
    }
    return;
  }
  const principal = authenticateMain(req, state.credentials, correlationId);
  const links = method === "POST" && path === "/v1/links";
  enforceRateLimits(
    links ? [state.mainLimiter, state.linkLimiter] : [state.mainLimiter],
    principal.credential,
    state.now(),
  );
  checkMainUserHeaders(req, principal);
}

async function handle(
  ctx: RequestContext,
  routes: Route[],
  controlRoutes: Route[],
  noteFault: (fault: Fault) => void,
): Promise<void> {
  const { req, res, method, path, correlationId, state } = ctx;
  if (ctx.service === "main" && path.startsWith("/_sim/")) {
    const found = findRoute(controlRoutes, method, path);
    if (!found) throw new ApiError("NOT_FOUND", `No control route ${method} ${path}`);
    const reply = await found.route.handler({ ...ctx, params: found.params });
    sendJson(res, reply.status, reply.body, correlationId, reply.headers);
    return;
  }
  const fault = state.faults.pick(method, path);
  if (fault) {
    noteFault(fault);
    if (
      await applyFault(fault, req, res, {
        correlationId,
        service: ctx.service,
        scheduler: state.scheduler,
        shapeError: (error) => shapeError(error, ctx),
        statusOf: state.profile.seed === 0 ? undefined : (code) => statusOfCode(state.profile, code),
      })
    )
      return;
  }
  if (!path.startsWith("/v1/")) throw new ApiError("NOT_FOUND", `No route ${method} ${path}`);
  guard(ctx);
  const found = findRoute(routes, method, path);
  if (!found) throw new ApiError("NOT_FOUND", `No route ${method} ${path}`);
  const routeCtx = { ...ctx, params: found.params };
  const reply = await found.route.handler(routeCtx);
  sendReply(res, shapeReply(`${method} ${found.route.pattern}`, reply, routeCtx), correlationId);
}

function listener(state: SimulatorState, service: "main" | "files", controlRoutes: Route[]) {
  const routes = service === "main" ? mainRoutes : fileRoutes;
  return (req: IncomingMessage, res: ServerResponse) => {
    const correlationId = correlationIdOf(req, () => state.random.uuid());
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? "" : url.slice(q + 1);
    const method = (req.method ?? "GET").toUpperCase();
    const time = new Date().toISOString();
    let fault: Fault | undefined;
    if (!path.startsWith("/_sim/")) {
      res.on("close", () => {
        state.log.add({
          service,
          method,
          path,
          query: redactQuery(rawQuery),
          headers: redactHeaders(req.headers, secretsOf(state)),
          status: res.headersSent ? res.statusCode : null,
          correlationId,
          time,
          // A log entry people print: no `fault` key at all on a request no fault touched.
          ...(fault ? { fault: { faultId: fault.faultId, kind: fault.kind } } : {}),
        });
      });
    }
    if (method === "OPTIONS") return answerPreflight(res, correlationId);
    const ctx: RequestContext = {
      req,
      res,
      service,
      method,
      path,
      rawQuery,
      params: {},
      correlationId,
      state,
    };
    const noteFault = (fired: Fault) => {
      fault = fired;
    };
    handle(ctx, routes, controlRoutes, noteFault).catch((error: unknown) => {
      const apiError =
        error instanceof ApiError
          ? error
          : new ApiError("INTERNAL_ERROR", "The simulator failed to handle the request");
      sendError(res, shapeError(apiError, ctx), correlationId);
    });
  };
}

/** A listening server and its URL. */
export interface Listening {
  server: Server;
  url: string;
}

/** Starts one server on 127.0.0.1. */
export function listen(
  state: SimulatorState,
  service: "main" | "files",
  port: number,
  controlRoutes: Route[],
): Promise<Listening> {
  const server = createServer(listener(state, service, controlRoutes));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    });
  });
}

/** Stops a server and ends every connection it holds. */
export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
