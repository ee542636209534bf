/**
 * `promo-review doctor`: each setting and where it came from, then the service, item by item, each
 * with what to do. Every check is independent: one failing does not hide the others.
 */

import type { Observer } from "@promo-review/errors/observe";
import { createHttpClient, fillPath, type HttpClient, type HttpResult } from "@promo-review/http";
import { createPromotion, listChannels } from "@promo-review/promotions-core";
import {
  ENVIRONMENT_VARIABLES,
  isPromoReviewError,
  type PromoReviewError,
  TransportError,
} from "@promo-review/sdk";
import { uploadStatusRead } from "@promo-review/upload-chunker/operations";
import type { EnvFile } from "./env-file.js";
import { EXIT, type ExitCode } from "./exit-codes.js";
import { type GlobalOptions, SETTING_FLAGS, settingSource, settingsFromFlags } from "./settings.js";
import { tracingCheck } from "./tracing/tracing-check.js";

/** An upload no service holds (a uuid, so the path is well formed): its status read must be a 404. */
const UNKNOWN_UPLOAD = "00000000-0000-4000-8000-000000000000";

/** How one check came out. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One item of the diagnosis. */
export interface Check {
  /**
   * Stable name, for scripts: `setting.apiKey`, `key`, `user-id`, `act-on-behalf`, `files`,
   * `webhook-secret`, `clock`, `tracing`.
   */
  id: string;
  status: CheckStatus;
  /** What was found. */
  message: string;
  /** What to do about it (for `warn` and `fail`). */
  advice?: string;
  /** The correlation id of the answer that decided it, to quote to support. */
  correlationId?: string;
  /** The exit code a failure of this check deserves. */
  exitCode?: ExitCode;
}

/** What the diagnosis needs. */
export interface DoctorInput {
  globals: GlobalOptions;
  /** The process's own environment. */
  processEnv: Record<string, string | undefined>;
  /** The settings file, if one was read. */
  envFile: EnvFile | undefined;
  /** The merged environment the settings are read from. */
  env: Record<string, string | undefined>;
  /** The local clock (ms since the epoch). */
  now: () => number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Where the OpenTelemetry SDK is looked for first (default: `process.cwd()`). */
  cwd?: string;
  /** The run's observer (OpenTelemetry's, when the `OTEL_*` variables ask): doctor's own requests are traced too. */
  telemetry?: Observer | undefined;
}

type SettingName = keyof typeof SETTING_FLAGS;
const REQUIRED: SettingName[] = ["apiKey", "baseUrl", "filesUrl", "externalUserId"];
const SECRET: SettingName[] = ["apiKey", "webhookSecret"];

/** Skew past which webhook deliveries are refused (the default tolerance, both ways). */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;
/** Skew worth a warning: a minute is far more than any clock kept by NTP drifts. */
export const SKEW_WARNING_MS = 60_000;

/** Whether an API key looks like a staging or a production key (by the usual `test`/`live` words). */
export function keyLooksLike(key: string): "staging" | "production" | undefined {
  if (/(^|[_-])(test|staging|stage|stg|sandbox)([_-]|$)/i.test(key)) return "staging";
  if (/(^|[_-])(live|prod|production)([_-]|$)/i.test(key)) return "production";
  return undefined;
}

/** Whether a URL looks like a staging instance (a host naming staging, sandbox, test or dev) or production. */
export function urlLooksLike(url: string): "staging" | "production" {
  const host = new URL(url).hostname;
  return /(^|[.-])(staging|stage|stg|sandbox|test|dev)([.-]|$)/i.test(host) ? "staging" : "production";
}

/** The value of a setting as doctor may show it: secrets never, only that they are set. */
function shown(name: SettingName, value: string): string {
  return SECRET.includes(name) ? `set (${value.length} characters, not shown)` : value;
}

/** A setting's flag value as text (a list of webhook secrets joined as its variable would hold it). */
function flagValue(globals: GlobalOptions, name: SettingName): string | undefined {
  const value = settingsFromFlags(globals)[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function settingChecks(input: DoctorInput): Check[] {
  return (Object.keys(SETTING_FLAGS) as SettingName[]).map((name) => {
    const variable = ENVIRONMENT_VARIABLES[name];
    const source = settingSource(name, input.globals, input.processEnv, input.envFile);
    const id = `setting.${name}`;
    if (source === "missing") {
      const required = REQUIRED.includes(name);
      return {
        id,
        status: required ? "fail" : "skip",
        message: `${SETTING_FLAGS[name]} is not set`,
        ...(required
          ? {
              advice: `pass ${SETTING_FLAGS[name]}, set ${variable}, or add ${variable}=... to .env`,
              exitCode: EXIT.usage,
            }
          : {}),
      } satisfies Check;
    }
    const value = (flagValue(input.globals, name) ?? input.env[variable] ?? "").trim();
    const from =
      source === "flag"
        ? `the ${SETTING_FLAGS[name]} flag`
        : source === "environment"
          ? `${variable} in the environment`
          : `${variable} in ${input.envFile?.path}`;
    return {
      id,
      status: "ok",
      message: `${SETTING_FLAGS[name]}: ${shown(name, value)}, from ${from}`,
    } satisfies Check;
  });
}

function urlCheck(name: "baseUrl" | "filesUrl", value: string | undefined): Check | undefined {
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return undefined;
  return {
    id: `setting.${name}`,
    status: "fail",
    message: url
      ? `${SETTING_FLAGS[name]} has the URL scheme ${url.protocol.slice(0, -1)}, which is not supported`
      : `${SETTING_FLAGS[name]} is not a URL (its value is not repeated: it may be a secret in the wrong setting)`,
    advice: "use an https:// URL (http:// for a local service)",
    exitCode: EXIT.usage,
  };
}

/** What a failed request says, as a check. */
function failureCheck(id: string, error: unknown, what: string): Check {
  if (error instanceof TransportError) {
    return {
      id,
      status: "fail",
      message: `${what} could not be reached: ${error.message}`,
      advice: "check the URL and the network",
      exitCode: EXIT.network,
    };
  }
  const e = error as PromoReviewError;
  return {
    id,
    status: "fail",
    message: `${what} answered ${e.code ?? "an error"}${e.status ? ` (HTTP ${e.status})` : ""}: ${e.message}`,
    correlationId: e.correlationId || undefined,
    exitCode: isPromoReviewError(error) ? EXIT.service : EXIT.unexpected,
  };
}

/** The key check from the main API's answer (or failure) to a read. */
function keyCheck(
  answer: HttpResult<unknown> | undefined,
  error: unknown,
  key: string,
  baseUrl: string,
): Check {
  if (answer)
    return {
      id: "key",
      status: "ok",
      message: "the main API accepted the key",
      correlationId: answer.correlationId,
    };
  const check = failureCheck("key", error, "The main API");
  if (!isPromoReviewError(error)) return check;
  if (error.status === 401) {
    const keyKind = keyLooksLike(key);
    const urlKind = urlLooksLike(baseUrl);
    check.message = `The main API refused the key (401 ${error.code})`;
    check.advice =
      keyKind && keyKind !== urlKind
        ? `the key looks like a ${keyKind} key but ${baseUrl} looks like ${urlKind}; staging and production keys are not interchangeable: use the ${urlKind} key, or the ${keyKind} URL`
        : "the key is invalid or revoked: create a new key and pass it with --api-key or PROMO_REVIEW_API_KEY";
  } else if (error.status === 403) {
    check.message = "The key authenticates but is not fully configured for your organisation";
    check.advice = `contact support quoting correlation id ${error.correlationId ?? "(none was returned)"}`;
  }
  return check;
}

/** What mentions an email in an error: its message or a field name. */
function mentionsEmail(error: PromoReviewError): boolean {
  return /email/i.test(error.message) || error.fieldErrors.some((f) => /email/i.test(f.field));
}

/**
 * Whether the key acts on behalf of users, asked without writing anything: a creation request that
 * breaks two stated rules (an empty `promotionName`, `details` over 1500 characters) can only be
 * refused; an act-on-behalf key without an email is refused for the email. Spends one request of the
 * main-API budget.
 */
async function actOnBehalfCheck(
  main: HttpClient,
  input: DoctorInput,
  email: string | undefined,
): Promise<Check> {
  if (email) {
    return { id: "act-on-behalf", status: "ok", message: `writes carry X-External-User-Email ${email}` };
  }
  try {
    // The creation as declared, sent as it is (unchecked: the body is meant to break the rules), its
    // template named as the SDK's own requests name it.
    const answer = await main.request(createPromotion.path, {
      method: createPromotion.method,
      json: { promotionName: "", details: "x".repeat(1501) },
      retry: false,
      urlTemplate: createPromotion.path,
      signal: input.signal,
    });
    return {
      id: "act-on-behalf",
      status: "warn",
      message: `the service accepted a creation request that breaks its stated rules (HTTP ${answer.status})`,
      advice: "report this to support with the correlation id",
      correlationId: answer.correlationId,
    };
  } catch (error) {
    if (isPromoReviewError(error) && error.status === 400 && mentionsEmail(error)) {
      return {
        id: "act-on-behalf",
        status: "warn",
        message:
          "this key acts on behalf of users, and no --user-email is set: every write (create, submit, evaluate) will be refused",
        advice:
          "pass --user-email or set PROMO_REVIEW_USER_EMAIL to the acting user's email before any write",
        correlationId: error.correlationId || undefined,
      };
    }
    if (isPromoReviewError(error) && error.status === 400) {
      return { id: "act-on-behalf", status: "ok", message: "writes need no --user-email with this key" };
    }
    return failureCheck("act-on-behalf", error, "The main API");
  }
}

/** The file service with the same credentials: an unknown upload must be a 404, not a 401 or 403. */
async function filesCheck(files: HttpClient, signal: AbortSignal | undefined): Promise<Check> {
  try {
    const answer = await files.request(fillPath(uploadStatusRead.path, { uploadId: UNKNOWN_UPLOAD }), {
      method: uploadStatusRead.method,
      retry: false,
      urlTemplate: uploadStatusRead.path,
      signal,
    });
    return {
      id: "files",
      status: "ok",
      message: "the file service accepted the credentials",
      correlationId: answer.correlationId,
    };
  } catch (error) {
    if (isPromoReviewError(error) && error.status === 404) {
      return {
        id: "files",
        status: "ok",
        message: "the file service is reachable and accepted the same credentials",
        correlationId: error.correlationId || undefined,
      };
    }
    const check = failureCheck("files", error, "The file service");
    if (isPromoReviewError(error) && error.status === 403) {
      check.advice = `contact support quoting correlation id ${error.correlationId ?? "(none was returned)"}`;
    }
    return check;
  }
}

/** A webhook secret's format: `whsec_` and base64 (each of a comma-separated rotation list). */
export function webhookSecretCheck(value: string | undefined): Check {
  if (!value) {
    return {
      id: "webhook-secret",
      status: "skip",
      message:
        "no webhook secret (needed only to receive webhooks: webhooks listen, evaluate --wait --webhook-port)",
    };
  }
  const secrets = value.split(",").map((s) => s.trim());
  const bad = secrets.filter((secret) => {
    const body = secret.startsWith("whsec_") ? secret.slice(6) : undefined;
    return !body || !/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 === 1;
  });
  if (bad.length > 0) {
    return {
      id: "webhook-secret",
      status: "fail",
      message: `${bad.length} of ${secrets.length} webhook secret(s) are not whsec_ followed by base64`,
      advice: "copy the endpoint's whole signing secret, starting with whsec_",
      exitCode: EXIT.usage,
    };
  }
  return {
    id: "webhook-secret",
    status: "ok",
    message: `${secrets.length} webhook secret(s) in the whsec_ format`,
  };
}

/** The local clock against the service's `Date` header, taken at the middle of the exchange. */
export function clockCheck(date: string | null, sentAt: number, receivedAt: number): Check {
  const service = date ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(service)) {
    return {
      id: "clock",
      status: "skip",
      message: "the service sent no Date header to compare the clock with",
    };
  }
  // The header has whole seconds: half a second either way is the header's, not the clock's.
  const skew = (sentAt + receivedAt) / 2 - (service + 500);
  const seconds = `${Math.abs(skew / 1000).toFixed(1)} s ${skew > 0 ? "ahead of" : "behind"} the service`;
  if (Math.abs(skew) >= WEBHOOK_TOLERANCE_MS) {
    return {
      id: "clock",
      status: "fail",
      message: `this clock is ${seconds}: webhook timestamps are checked against it, and every delivery would be refused`,
      advice: "synchronise the clock (NTP)",
      exitCode: EXIT.service,
    };
  }
  if (Math.abs(skew) >= SKEW_WARNING_MS) {
    return {
      id: "clock",
      status: "warn",
      message: `this clock is ${seconds}; webhook deliveries are refused past ${WEBHOOK_TOLERANCE_MS / 60_000} minutes`,
      advice: "synchronise the clock (NTP)",
    };
  }
  return {
    id: "clock",
    status: "ok",
    message: `this clock is within ${seconds.replace(/ (ahead of|behind)/, " of")}`,
  };
}

/** Runs every check, in order. */
export async function diagnose(input: DoctorInput): Promise<Check[]> {
  const value = (name: SettingName) =>
    (flagValue(input.globals, name) ?? input.env[ENVIRONMENT_VARIABLES[name]])?.trim() || undefined;
  const checks = settingChecks(input);
  for (const name of ["baseUrl", "filesUrl"] as const) {
    const bad = urlCheck(name, value(name));
    if (bad) checks[checks.findIndex((c) => c.id === `setting.${name}`)] = bad;
  }
  const apiKey = value("apiKey");
  const externalUserId = value("externalUserId");
  const email = value("externalUserEmail");
  const usable = (id: string) => checks.find((c) => c.id === id)?.status === "ok";
  const skip = (id: string, why: string): Check => ({ id, status: "skip", message: why });

  checks.push(
    externalUserId
      ? { id: "user-id", status: "ok", message: `requests act for external user ${externalUserId}` }
      : {
          id: "user-id",
          status: "fail",
          message: "no external user id: the main API refuses every request without X-External-User-ID",
          advice: "pass --user-id or set PROMO_REVIEW_USER_ID (the acting user's id in your system)",
          exitCode: EXIT.usage,
        },
  );
  const credentials =
    apiKey && externalUserId ? { apiKey, externalUserId, externalUserEmail: email || undefined } : undefined;
  const clientOf = (baseUrl: string) =>
    createHttpClient({
      baseUrl,
      ...credentials!,
      retry: false,
      timeoutMs: 15_000,
      fetch: input.fetch,
      telemetry: input.telemetry,
    });

  let keyOk = false;
  if (credentials && usable("setting.baseUrl")) {
    const main = clientOf(value("baseUrl")!);
    const sentAt = input.now();
    let answer: HttpResult<unknown> | undefined;
    let failure: unknown;
    try {
      answer = await main.request(listChannels.path, {
        method: listChannels.method,
        urlTemplate: listChannels.path,
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } catch (error) {
      failure = error;
    }
    const receivedAt = input.now();
    checks.push(keyCheck(answer, failure, apiKey!, value("baseUrl")!));
    keyOk = answer !== undefined;
    checks.push(
      keyOk ? await actOnBehalfCheck(main, input, email) : skip("act-on-behalf", "needs an accepted key"),
    );
    checks.push(
      answer
        ? clockCheck(answer.headers.get("date"), sentAt, receivedAt)
        : skip("clock", "needs an answer from the main API"),
    );
  } else {
    const why = "needs --api-key, --user-id and a valid --base-url";
    checks.push(skip("key", why), skip("act-on-behalf", why), skip("clock", why));
  }
  checks.push(
    credentials && usable("setting.filesUrl")
      ? await filesCheck(clientOf(value("filesUrl")!), input.signal)
      : skip("files", "needs --api-key, --user-id and a valid --files-url"),
  );
  checks.push(webhookSecretCheck(value("webhookSecret")));
  // The OTEL_* variables are the process's own: the settings file holds only PROMO_REVIEW_* entries.
  checks.push(tracingCheck({ env: input.processEnv, cwd: input.cwd ?? process.cwd() }));
  return checks;
}

/** The exit code of a diagnosis: 0 when nothing failed, else the first failure's. */
export function doctorExitCode(checks: readonly Check[]): ExitCode {
  const failed = checks.find((check) => check.status === "fail");
  return failed ? (failed.exitCode ?? EXIT.service) : EXIT.ok;
}
