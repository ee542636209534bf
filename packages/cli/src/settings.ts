/**
 * Connection settings: each from its flag, else its `PROMO_REVIEW_*` variable (the SDK's names), else
 * the settings file (see env-file.ts). A missing one is a usage error naming both the flag and the
 * variable, before anything is sent.
 */

import type { Observer } from "@promo-review/errors/observe";
import {
  createClient,
  ENVIRONMENT_VARIABLES,
  type PromoReviewClient,
  resolveSettings,
  type Settings,
  type SettingsInput,
} from "@promo-review/sdk";
import type { ResumeStore } from "@promo-review/upload-chunker";
import type { EnvFile } from "./env-file.js";
import { UsageError } from "./usage-error.js";

/** The options every command accepts (on the program, so they go before or after the subcommand). */
export interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  filesUrl?: string;
  userId?: string;
  userEmail?: string;
  webhookSecret?: string;
  /** A dotenv file of `PROMO_REVIEW_*` settings (default: `.env` in the working directory, if any). */
  envFile?: string;
  json?: boolean;
  debug?: boolean;
}

/** Each setting's flag, for messages and help. */
export const SETTING_FLAGS = {
  apiKey: "--api-key",
  baseUrl: "--base-url",
  filesUrl: "--files-url",
  externalUserId: "--user-id",
  externalUserEmail: "--user-email",
  webhookSecret: "--webhook-secret",
} as const;

type Environment = Record<string, string | undefined>;

/** The settings given by flags, under the SDK's names (absent ones left out, so the environment fills them). */
export function settingsFromFlags(options: GlobalOptions): SettingsInput {
  const input: SettingsInput = {};
  if (options.apiKey) input.apiKey = options.apiKey;
  if (options.baseUrl) input.baseUrl = options.baseUrl;
  if (options.filesUrl) input.filesUrl = options.filesUrl;
  if (options.userId) input.externalUserId = options.userId;
  if (options.userEmail) input.externalUserEmail = options.userEmail;
  if (options.webhookSecret) input.webhookSecret = options.webhookSecret;
  return input;
}

/** Whether a setting is given, by flag or environment. */
export function hasSetting(
  name: keyof typeof SETTING_FLAGS,
  options: GlobalOptions,
  env: Environment,
): boolean {
  const fromFlags = settingsFromFlags(options)[name];
  return Boolean(fromFlags) || Boolean(env[ENVIRONMENT_VARIABLES[name]]?.trim());
}

const REQUIRED = ["apiKey", "baseUrl", "filesUrl", "externalUserId"] as const;

/** Where a setting came from, by precedence: its flag, the environment, the settings file. */
export type SettingSource = "flag" | "environment" | "file" | "missing";

/** Where `name` came from (`env` being the process's own environment, without the file). */
export function settingSource(
  name: keyof typeof SETTING_FLAGS,
  options: GlobalOptions,
  env: Environment,
  file: EnvFile | undefined,
): SettingSource {
  if (settingsFromFlags(options)[name]) return "flag";
  const variable = ENVIRONMENT_VARIABLES[name];
  if (env[variable]?.trim()) return "environment";
  if (file?.values[variable]?.trim()) return "file";
  return "missing";
}

/** What to tell someone whose settings are incomplete, by command. */
const DEFAULT_HINT =
  "for a local service, run `promo-review simulator`, or `promo-review demo`, which starts its own";

/**
 * The URL settings checked for what the client can use, so that `--base-url ftp://x` is named as a
 * bad scheme (or a malformed URL) rather than as missing configuration.
 */
function urlProblems(options: GlobalOptions, env: Environment): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  for (const name of ["baseUrl", "filesUrl"] as const) {
    const value = settingsFromFlags(options)[name] ?? env[ENVIRONMENT_VARIABLES[name]]?.trim();
    if (!value) continue;
    const where = `${SETTING_FLAGS[name]} (${ENVIRONMENT_VARIABLES[name]})`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      problems.push({
        field: where,
        // The value is not repeated: a key pasted into the wrong setting would be printed otherwise.
        message: "is not a URL (e.g. https://api.example.com)",
      });
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      problems.push({
        field: where,
        message: `the URL scheme ${url.protocol.slice(0, -1)} is not supported: use https:// (or http:// for a local service)`,
      });
    }
  }
  return problems;
}

/**
 * The settings from flags and environment. Every missing one is named at once, with its flag and its
 * variable; a malformed URL or an unsupported scheme fails here too, before anything is sent.
 */
export function requireSettings(
  options: GlobalOptions,
  env: Environment,
  hint: string = DEFAULT_HINT,
): Settings {
  const badUrls = urlProblems(options, env);
  if (badUrls.length > 0) throw new UsageError("Invalid service URL", badUrls);
  const missing = REQUIRED.filter((name) => !hasSetting(name, options, env));
  if (missing.length > 0) {
    throw new UsageError(
      `The service settings are incomplete (${hint})`,
      missing.map((name) => ({
        field: SETTING_FLAGS[name],
        message: `is required: pass ${SETTING_FLAGS[name]} or set ${ENVIRONMENT_VARIABLES[name]}`,
      })),
    );
  }
  return resolveSettings(settingsFromFlags(options), env);
}

/**
 * Makes the SDK client from flags and environment (see {@link requireSettings}), with `extra`'s
 * `fetch`, resume store and OpenTelemetry providers.
 */
export function clientFrom(
  options: GlobalOptions,
  env: Environment,
  extra: { fetch?: typeof fetch; resumeStore?: ResumeStore; telemetry?: Observer } = {},
): PromoReviewClient {
  return createClient({ ...requireSettings(options, env), env, ...extra });
}
