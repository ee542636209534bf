/**
 * Declarative budgets: which requests take from which limit. The service's own limits are the
 * defaults (60 per minute shared by every main-API `/v1/` call, 10 per minute for `POST /v1/links`);
 * a request takes from every budget that matches it, and a request that matches none passes straight
 * through (the file service's chunk PUT and upload status are not limited).
 */
import type { StoreWindow } from "@promo-review/store";

/** What a rule sees of a request: its method (upper case) and its path relative to `baseUrl`. */
export interface RouteTarget {
  /** Upper-case HTTP method, e.g. `POST`. */
  method: string;
  /** The path below `baseUrl`, without query or fragment, e.g. `/v1/links`. */
  path: string;
}

/** A route pattern; every field given must match. */
export interface RouteMatch {
  /** HTTP method, any case. */
  method?: string;
  /** The path starts with this, e.g. `/v1/`. */
  pathPrefix?: string;
  /** The path is exactly this, e.g. `/v1/links`. */
  path?: string;
}

/** One budget: at most `limit` requests in any `windowMs`, for the requests `match` selects. */
export interface BudgetRule {
  /** Names the budget in events, errors and store keys; unique within a budget set. */
  name: string;
  /** Requests allowed in any window of `windowMs`. */
  limit: number;
  /** The window length, in milliseconds. */
  windowMs: number;
  /**
   * The most requests sent back to back; the rest are spread evenly (at most `burst` in any
   * `windowMs * burst / limit`). Defaults to the budget's `burst` option, else `limit` (no smoothing).
   */
  burst?: number;
  /** Which requests take from this budget: a route pattern or a predicate. */
  match: RouteMatch | ((target: RouteTarget) => boolean);
}

/** The service's published limits, for building on: `[...defaultBudgets(), myRule]`. */
export function defaultBudgets(): BudgetRule[] {
  return [
    { name: "shared", limit: 60, windowMs: 60_000, match: { pathPrefix: "/v1/" } },
    { name: "links", limit: 10, windowMs: 60_000, match: { method: "POST", path: "/v1/links" } },
  ];
}

/** One window a store keeps per key: the unit that is checked and taken atomically. */
export interface WindowSpec extends StoreWindow {
  /** The rule the window belongs to, for errors and events. */
  rule: string;
}

/** A rule made ready for decisions. */
export interface CompiledRule {
  name: string;
  test: (target: RouteTarget) => boolean;
  windows: WindowSpec[];
}

function matcherOf(match: BudgetRule["match"]): (target: RouteTarget) => boolean {
  if (typeof match === "function") return match;
  const method = match.method?.toUpperCase();
  const { path, pathPrefix } = match;
  return (target) =>
    (method === undefined || target.method === method) &&
    (path === undefined || target.path === path) &&
    (pathPrefix === undefined || target.path.startsWith(pathPrefix));
}

/**
 * Validates rules and turns each into its windows. The main window is lengthened by
 * `safetyMarginMs` because the client admits at send time while the server counts at arrival: two
 * requests sent exactly `windowMs` apart can arrive closer than that when latency varies. The burst
 * window shapes our own sending only, so it gets no margin.
 */
export function compileRules(
  rules: readonly BudgetRule[],
  safetyMarginMs: number,
  burst?: number,
  maxLatencyMs = 10_000,
): CompiledRule[] {
  if (!(safetyMarginMs >= 0)) throw new RangeError(`safetyMarginMs must be >= 0, got ${safetyMarginMs}`);
  if (!(maxLatencyMs >= 0)) throw new RangeError(`maxLatencyMs must be >= 0, got ${maxLatencyMs}`);
  const names = new Set<string>();
  return rules.map((rule) => {
    if (names.has(rule.name)) throw new RangeError(`two budgets are named "${rule.name}"`);
    names.add(rule.name);
    if (!Number.isInteger(rule.limit) || rule.limit < 1) {
      throw new RangeError(`budget "${rule.name}": limit must be a positive integer, got ${rule.limit}`);
    }
    if (!(rule.windowMs > 0) || !Number.isFinite(rule.windowMs)) {
      throw new RangeError(`budget "${rule.name}": windowMs must be positive, got ${rule.windowMs}`);
    }
    const windows: WindowSpec[] = [
      {
        id: rule.name,
        rule: rule.name,
        limit: rule.limit,
        windowMs: rule.windowMs + safetyMarginMs,
        holdMs: maxLatencyMs,
      },
    ];
    const size = rule.burst ?? burst ?? rule.limit;
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`budget "${rule.name}": burst must be a positive integer, got ${size}`);
    }
    if (size < rule.limit) {
      windows.push({
        id: `${rule.name}:burst`,
        rule: rule.name,
        limit: size,
        windowMs: (rule.windowMs * size) / rule.limit,
      });
    }
    return { name: rule.name, test: matcherOf(rule.match), windows };
  });
}

/** A request as the budget needs it: a Fetch `Request` qualifies. */
export interface BudgetRequest {
  method?: string;
  /** Absolute URL, or a path (`/v1/links`) taken as relative to `baseUrl`. */
  url: string | URL;
}

/**
 * Finds the path of `url` below `base` (an absolute URL without a trailing slash), or `undefined`
 * when the URL is elsewhere (another origin, the file service). String slicing, not `new URL`, keeps
 * the check cheap on the hot path; `base` is normalised once by `new URL`.
 */
export function targetOf(request: BudgetRequest, base: string): RouteTarget | undefined {
  const href = typeof request.url === "string" ? request.url : request.url.href;
  let rest: string;
  if (href.startsWith("/")) rest = href;
  else if (href.startsWith(base)) rest = href.slice(base.length);
  else return undefined;
  if (rest === "") rest = "/";
  else if (rest[0] !== "/") {
    // `http://host:1234` must not claim `http://host:12345/...`.
    if (rest[0] !== "?" && rest[0] !== "#") return undefined;
    rest = `/${rest}`;
  }
  let end = rest.length;
  const query = rest.indexOf("?");
  if (query !== -1) end = query;
  const hash = rest.indexOf("#");
  if (hash !== -1 && hash < end) end = hash;
  return {
    method: (request.method ?? "GET").toUpperCase(),
    path: end === rest.length ? rest : rest.slice(0, end),
  };
}

/** Normalises `baseUrl` for {@link targetOf}: parsed once, trailing slash removed. */
export function normaliseBase(baseUrl: string | URL): string {
  const href = new URL(baseUrl).href;
  return href.endsWith("/") ? href.slice(0, -1) : href;
}
