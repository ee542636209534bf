/**
 * Connection settings: each from its flag, else its `PROMO_REVIEW_*` variable (the SDK's names). A
 * missing one is a usage error naming both the flag and the variable, before anything is sent.
 */
import {
  createClient,
  ENVIRONMENT_VARIABLES,
  type PromoReviewClient,
  resolveSettings,
  type Settings,
  type SettingsInput,
} from "@promo-review/sdk";
import { UsageError } from "./usage-error.js";

/** The options every command accepts (on the program, so they go before or after the subcommand). */
export interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  filesUrl?: string;
  userId?: string;
  userEmail?: string;
  webhookSecret?: string;
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

/**
 * The settings from flags and environment. Every missing one is named at once, with its flag and its
 * variable; a malformed URL fails here too, before anything is sent.
 */
export function requireSettings(options: GlobalOptions, env: Environment): Settings {
  const missing = REQUIRED.filter((name) => !hasSetting(name, options, env));
  if (missing.length > 0) {
    throw new UsageError(
      "The service settings are incomplete (for a local service, run `promo-review simulator`, or `promo-review demo`, which starts its own)",
      missing.map((name) => ({
        field: SETTING_FLAGS[name],
        message: `is required: pass ${SETTING_FLAGS[name]} or set ${ENVIRONMENT_VARIABLES[name]}`,
      })),
    );
  }
  return resolveSettings(settingsFromFlags(options), env);
}

/** Makes the SDK client from flags and environment (see {@link requireSettings}). */
export function clientFrom(
  options: GlobalOptions,
  env: Environment,
  extra: { fetch?: typeof fetch } = {},
): PromoReviewClient {
  return createClient({ ...requireSettings(options, env), env, ...extra });
}
