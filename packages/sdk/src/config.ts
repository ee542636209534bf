import { type LocalIssue, localValidationError } from "@promo-review/errors/internal";

/** Where each setting may come from in the environment. */
export const ENVIRONMENT_VARIABLES = {
  apiKey: "PROMO_REVIEW_API_KEY",
  baseUrl: "PROMO_REVIEW_BASE_URL",
  filesUrl: "PROMO_REVIEW_FILES_URL",
  externalUserId: "PROMO_REVIEW_USER_ID",
  externalUserEmail: "PROMO_REVIEW_USER_EMAIL",
  webhookSecret: "PROMO_REVIEW_WEBHOOK_SECRET",
} as const;

/** The switch that logs one line per request and per retry (`1`, `true`, `yes` or `on` turn it on). */
export const DEBUG_VARIABLE = "PROMO_REVIEW_DEBUG";

/**
 * Whether debug logging is on: the explicit option when given, else `PROMO_REVIEW_DEBUG`. Where there
 * is no environment (browsers, Workers without `process`) only the option counts.
 */
export function debugEnabled(
  explicit: boolean | undefined,
  env: Environment = defaultEnvironment(),
): boolean {
  if (explicit !== undefined) return explicit;
  const value = readVariable(env, DEBUG_VARIABLE)?.toLowerCase();
  return value === "1" || value === "true" || value === "yes" || value === "on";
}

/** The settings that come from config or environment. */
export interface Settings {
  apiKey: string;
  externalUserId: string;
  externalUserEmail: string | undefined;
  baseUrl: string;
  filesUrl: string;
  /** One secret, or several during rotation (comma-separated in the environment). */
  webhookSecret: string | string[] | undefined;
}

/**
 * Explicit settings; anything absent (or `undefined`, as `process.env.X` may be) is read from the
 * environment. `| undefined` keeps `createClient({ apiKey: process.env.KEY })` compiling under
 * `exactOptionalPropertyTypes`.
 */
export type SettingsInput = { [K in keyof Settings]?: Settings[K] | undefined };

type Environment = Record<string, string | undefined>;

/** The process environment where there is one (Node, Bun, Deno with --allow-env); empty elsewhere. */
export function defaultEnvironment(): Environment {
  const process = (globalThis as { process?: { env?: Environment } }).process;
  return process?.env ?? {};
}

const REQUIRED = ["apiKey", "externalUserId", "baseUrl", "filesUrl"] as const;

/**
 * Says what is wrong with a URL setting without repeating it: a key pasted into the wrong setting
 * (or a swapped variable) would otherwise be printed in every log that records the error.
 */
function badUrlMessage(value: string, pick: (name: keyof typeof ENVIRONMENT_VARIABLES) => unknown): string {
  const hidden = `the value given (${value.length} characters, not shown in case it is a secret)`;
  const secrets = [pick("apiKey"), pick("webhookSecret")]
    .flat()
    .flatMap((s) => (typeof s === "string" ? s.split(",").map((part) => part.trim()) : []));
  if (secrets.includes(value)) {
    return "must be an http(s) URL, but it holds a configured secret: are two settings swapped?";
  }
  return `must be an http(s) URL such as https://api.example.com; ${hidden} does not start with http:// or https:// and a host`;
}

/**
 * Reads one variable, treating a refusal as absence: Deno without `--allow-env` throws on every read of
 * `process.env`, and a client given all its settings explicitly must still work there.
 */
function readVariable(env: Environment, name: string): string | undefined {
  try {
    return env[name]?.trim();
  } catch {
    return undefined;
  }
}

/**
 * Resolves the client's settings: explicit values first, then `PROMO_REVIEW_*` variables. A missing
 * required setting fails with an error that names both the option and the variable, and a URL that is
 * not http(s) fails here rather than on the first request.
 */
export function resolveSettings(input: SettingsInput, env: Environment = defaultEnvironment()): Settings {
  const pick = (name: keyof typeof ENVIRONMENT_VARIABLES) => {
    const explicit = input[name];
    if (explicit !== undefined && explicit !== "") return explicit;
    const fromEnv = readVariable(env, ENVIRONMENT_VARIABLES[name]);
    return fromEnv === "" ? undefined : fromEnv;
  };
  const issues: LocalIssue[] = [];
  for (const name of REQUIRED) {
    if (pick(name) === undefined) {
      issues.push({
        field: name,
        message: `is required: pass it to createClient or set ${ENVIRONMENT_VARIABLES[name]}`,
      });
    }
  }
  for (const name of ["baseUrl", "filesUrl"] as const) {
    const value = pick(name);
    if (typeof value === "string" && !/^https?:\/\/[^/\s]+/i.test(value)) {
      issues.push({ field: name, message: badUrlMessage(value, pick) });
    }
  }
  if (issues.length > 0) throw localValidationError(issues, "The client configuration is incomplete");
  const secret = pick("webhookSecret");
  return {
    apiKey: pick("apiKey") as string,
    externalUserId: pick("externalUserId") as string,
    externalUserEmail: pick("externalUserEmail") as string | undefined,
    baseUrl: pick("baseUrl") as string,
    filesUrl: pick("filesUrl") as string,
    webhookSecret:
      typeof secret === "string" && secret.includes(",") ? secret.split(",").map((s) => s.trim()) : secret,
  };
}
