/**
 * Fault injection: per route, by probability (a seeded generator per fault, so a failing run can be
 * replayed) and/or by count. Faults act before authentication, rate limiting and the handler, so an
 * injected failure never changes state (a failed chunk PUT stores nothing, a forced 429 consumes no
 * budget).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { corsHeaders } from "./cors.js";
import { ApiError, type ErrorCode, sendError } from "./envelope.js";
import { isObject, Problems } from "./problems.js";
import { createRandom, type Random } from "./random.js";
import type { Scheduler } from "./scheduler.js";

/** The kinds of fault. */
export const FAULT_KINDS = ["status", "reset", "slow", "rate-limit", "html-502"] as const;

/** What a fault does: an error status, a connection reset, a delay, a forced 429, or a proxy's HTML 502. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The error codes a `status` fault may carry. */
export const FAULT_CODES = ["INTERNAL_ERROR", "UPSTREAM_ERROR", "SERVICE_ERROR"] as const;

/** A fault to inject. */
export interface FaultSpec {
  /** `"*"` for every route, or `"<METHOD> <path>"` where METHOD may be `*` and `*` in the path matches anything, e.g. `"PUT /v1/uploads/*"`. */
  route: string;
  kind: FaultKind;
  /** For `status`: the HTTP status (default 500). */
  status?: number;
  /** For `status`: the error code (default INTERNAL_ERROR for 500, else UPSTREAM_ERROR on the main API, SERVICE_ERROR on the file service). */
  code?: (typeof FAULT_CODES)[number];
  /** For `rate-limit`: the Retry-After in seconds (default 1). */
  retryAfterSeconds?: number;
  /** For `slow`: the added delay (default 1000 ms); the request is then handled normally. */
  delayMs?: number;
  /** Chance of firing on each matching request (default 1). */
  probability?: number;
  /** How many times it may fire (default unlimited). */
  count?: number;
  /** For `reset`: body bytes to read before destroying the socket (default 0). */
  afterBytes?: number;
  /** Seed of this fault's probability rolls (default derived from the simulator seed). */
  seed?: number;
}

/** An active fault. */
export interface Fault extends FaultSpec {
  faultId: string;
  /** How many times it has fired. */
  fired: number;
}

/** True when a fault's route pattern covers this request. */
export function routeMatches(route: string, method: string, path: string): boolean {
  if (route.trim() === "*") return true;
  const [m, pattern] = route.trim().split(/\s+/, 2);
  if (!m || !pattern) return false;
  if (m !== "*" && m.toUpperCase() !== method.toUpperCase()) return false;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return regex.test(path);
}

function optionalNumber(
  problems: Problems,
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
) {
  const v = body[field];
  if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max)) {
    problems.field(field, `must be a number from ${min} to ${max}`);
  }
}

/** The active faults of one simulator. */
export class FaultRegistry {
  readonly #baseSeed: number;
  readonly #faults: { fault: Fault; random: Random }[] = [];
  #added = 0;

  constructor(baseSeed: number) {
    this.#baseSeed = baseSeed;
  }

  /** Validates and adds a fault. */
  add(spec: unknown): Fault {
    const problems = new Problems();
    const body = isObject(spec) ? spec : {};
    if (typeof body["route"] !== "string" || body["route"].trim() === "")
      problems.field("route", "is required");
    if (!FAULT_KINDS.includes(body["kind"] as FaultKind))
      problems.field("kind", `must be one of ${FAULT_KINDS.join(", ")}`);
    if (body["code"] !== undefined && !FAULT_CODES.includes(body["code"] as (typeof FAULT_CODES)[number])) {
      problems.field("code", `must be one of ${FAULT_CODES.join(", ")}`);
    }
    optionalNumber(problems, body, "status", 400, 599);
    optionalNumber(problems, body, "probability", 0, 1);
    optionalNumber(problems, body, "count", 1, Number.MAX_SAFE_INTEGER);
    optionalNumber(problems, body, "retryAfterSeconds", 0, 86_400);
    optionalNumber(problems, body, "delayMs", 0, 600_000);
    optionalNumber(problems, body, "afterBytes", 0, Number.MAX_SAFE_INTEGER);
    optionalNumber(problems, body, "seed", 0, 2 ** 32 - 1);
    problems.throwIfAny();
    this.#added++;
    const fault = { ...(body as unknown as FaultSpec), faultId: `flt_${this.#added}`, fired: 0 };
    const seed = fault.seed ?? (this.#baseSeed + this.#added * 7919) >>> 0;
    this.#faults.push({ fault, random: createRandom(seed) });
    return { ...fault };
  }

  /** The active faults (copies). */
  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f.fault }));
  }

  /** Removes one fault; false when unknown. */
  remove(faultId: string): boolean {
    const i = this.#faults.findIndex((f) => f.fault.faultId === faultId);
    if (i >= 0) this.#faults.splice(i, 1);
    return i >= 0;
  }

  /** Removes every fault; returns how many there were. */
  clear(): number {
    return this.#faults.splice(0).length;
  }

  /**
   * The fault that fires for this request, if any: the first matching one whose roll succeeds. A
   * fault that used up its count is removed.
   */
  pick(method: string, path: string): Fault | undefined {
    for (const entry of this.#faults) {
      const { fault, random } = entry;
      if (!routeMatches(fault.route, method, path)) continue;
      if (random.next() >= (fault.probability ?? 1)) continue;
      fault.fired++;
      if (fault.count !== undefined && fault.fired >= fault.count)
        this.#faults.splice(this.#faults.indexOf(entry), 1);
      return { ...fault };
    }
    return undefined;
  }
}

const HTML_502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/**
 * Applies a fault. Returns true when the request has been answered (or its connection destroyed)
 * and false when it should now be handled normally (after a `slow` delay).
 */
export async function applyFault(
  fault: Fault,
  req: IncomingMessage,
  res: ServerResponse,
  context: {
    correlationId: string;
    service: "main" | "files";
    scheduler: Scheduler;
    /** The variant profile's status of a code, for a fault that names a code and no status. */
    statusOf?: (code: ErrorCode) => number;
    /** The variant profile's reading of an error (for the injected 429). */
    shapeError?: (error: ApiError) => ApiError;
  },
): Promise<boolean> {
  switch (fault.kind) {
    case "slow":
      await context.scheduler.sleep(fault.delayMs ?? 1000);
      return false;
    case "reset":
      await readThenDestroy(req, fault.afterBytes ?? 0);
      return true;
    case "html-502":
      // A proxy in front of the service answers, so there is no envelope and no correlation id.
      res.writeHead(502, {
        ...corsHeaders(),
        "Content-Type": "text/html",
        "Content-Length": Buffer.byteLength(HTML_502),
      });
      res.end(HTML_502);
      return true;
    case "rate-limit": {
      const seconds = fault.retryAfterSeconds ?? 1;
      const error = new ApiError(
        "RATE_LIMITED",
        "Rate limit exceeded (injected)",
        [{ type: "retry_info", retryAfterSeconds: seconds }],
        {
          headers: { "Retry-After": String(Math.ceil(seconds)) },
        },
      );
      sendError(res, context.shapeError?.(error) ?? error, context.correlationId);
      return true;
    }
    default: {
      const status = fault.status ?? (fault.code && context.statusOf ? context.statusOf(fault.code) : 500);
      const code: ErrorCode =
        fault.code ??
        (status === 500
          ? "INTERNAL_ERROR"
          : context.service === "files"
            ? "SERVICE_ERROR"
            : "UPSTREAM_ERROR");
      sendError(res, new ApiError(code, `Injected failure (${code})`, [], { status }), context.correlationId);
      return true;
    }
  }
}

/** Reads `afterBytes` of the body (or all of it, when shorter) and then cuts the connection. */
function readThenDestroy(req: IncomingMessage, afterBytes: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const cut = () => {
      req.socket.destroy();
      resolve();
    };
    if (afterBytes === 0) return cut();
    req.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (seen >= afterBytes) cut();
    });
    req.on("end", cut);
    req.on("error", cut);
  });
}
