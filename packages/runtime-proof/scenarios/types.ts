/**
 * What a scenario receives and returns. A scenario runs inside one runtime (workerd, Deno, Bun,
 * Chromium, Node) with only web-standard globals, so its input is plain JSON built by the Node test that
 * started the simulator, and its output is plain JSON that the test checks against the simulator's
 * own record of what happened.
 */

/** The parts of a running simulator a scenario may use (all reachable over 127.0.0.1). */
export interface SimulatorEndpoints {
  baseUrl: string;
  filesUrl: string;
  apiKey: string;
  externalUserId: string;
  webhookSecret: string;
  reference: {
    channels: { id: string }[];
    jurisdictions: { id: string }[];
    products: { id: string }[];
  };
}

/** One scenario's input: the simulator, plus scenario-specific values. */
export interface ScenarioInput {
  sim: SimulatorEndpoints;
  [key: string]: unknown;
}

/** A JSON object a scenario returns. */
export type ScenarioOutput = Record<string, unknown>;

/** A scenario module's one export. */
export type Scenario = (input: ScenarioInput) => Promise<ScenarioOutput>;

/** A thrown value described as JSON, for results that record an expected failure. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const e = error as Error & Record<string, unknown>;
  const out: Record<string, unknown> = { name: e.name, message: e.message, constructor: e.constructor?.name };
  for (const key of ["code", "status", "correlationId", "reason", "retryAfterMs"]) {
    if (e[key] !== undefined) out[key] = e[key];
  }
  return out;
}

/** Which runtime a scenario actually ran in, read from its globals (the test checks it). */
export function runtimeFingerprint(): string {
  const g = globalThis as Record<string, unknown> & { navigator?: { userAgent?: string } };
  const ua = g.navigator?.userAgent ?? "";
  // The Vercel Edge runtime names itself in a global string (what edge code is told to test).
  if (typeof g["EdgeRuntime"] === "string") return "edge-runtime";
  if (g["Deno"] !== undefined) return "deno";
  if (g["Bun"] !== undefined) return "bun";
  if (ua === "Cloudflare-Workers") return "workerd";
  if (/HeadlessChrome|Chromium|Chrome\//.test(ua) && g["document"] !== undefined) return "chromium";
  const proc = g["process"] as { versions?: { node?: string } } | undefined;
  if (proc?.versions?.node) return "node";
  return `unknown (${ua})`;
}
