import { localValidationError } from "@promo-review/errors/internal";
import type { Observer } from "@promo-review/errors/observe";
import {
  type AppInfo,
  createHttpClient,
  type HttpClient,
  type Logger,
  type RequestHooks,
  type RetryPolicy,
} from "@promo-review/http";
import { createLinkCapture, type LinkCapture } from "@promo-review/link-capture";
import {
  createPromotionsClient,
  type PromotionsClient,
  type ReferenceCacheOptions,
  type ReferenceData,
} from "@promo-review/promotions-core";
import type { RateBudget } from "@promo-review/rate-budget";
import type { Store } from "@promo-review/store";
import { createUploader, type ResumeStore, type Uploader } from "@promo-review/upload-chunker";
import { createWebhookVerifier, type ReplayStore, type WebhookVerifier } from "@promo-review/webhook-verify";
import { type Batch, createBatch } from "./batch/runner.js";
import { debugEnabled, resolveSettings, type SettingsInput } from "./config.js";
import { createFlows, type Flows } from "./flows.js";
import { type BudgetChoice, chooseBudget } from "./shared-budget.js";
import { SDK_VERSION } from "./version.js";

/** Everything `createClient` takes; any setting left out is read from `PROMO_REVIEW_*` variables. */
export interface ClientConfig extends SettingsInput {
  /** A `fetch` for every request (tests, proxies, instrumentation). Default: the global one. */
  fetch?: typeof fetch | undefined;
  /**
   * The main-API budget (60 a minute per key, 10 a minute for link capture). Default: one budget per
   * key shared by every client in the process. Pass a `RateBudget` to share your own (a Redis-backed
   * one across processes), options for a private one, or `false` to turn it off.
   */
  rateBudget?: BudgetChoice | undefined;
  /**
   * Where the client's shared state lives: the budget, the webhook claims and the upload resume
   * points. Default `memoryStore()` (this process). Pass `redisStore(client)` from
   * `@promo-review/sdk/redis`, `durableObjectStore(env.PROMO_REVIEW_STATE)` from
   * `@promo-review/sdk/cloudflare`, `denoKvStore(kv)` from `@promo-review/sdk/deno` (or your own
   * adapter through `sharedStore` of `@promo-review/store`) and every process using it shares all three. `rateBudget`,
   * `replayStore` and `resumeStore`, when given, win for their part.
   */
  store?: Store | undefined;
  /** Replay protection of webhooks, or `false` for none. Default: the client's `store`. */
  replayStore?: ReplayStore | false | undefined;
  /** Client-side validation of every stated rule before sending. Default: on. */
  validate?: boolean | undefined;
  /** Reference data caching (default one day, in memory). */
  referenceCache?: ReferenceCacheOptions | undefined;
  /** Where unfinished uploads are remembered for resume. Default: the client's `store`. */
  resumeStore?: ResumeStore | undefined;
  /**
   * Further origins that may receive requests and credentials, for a deployment that serves a
   * `statusUrl` or `uploadUrl` (or redirects) elsewhere. Default none: a URL or redirect naming any
   * origin but `baseUrl`'s (main API) or `filesUrl`'s (file service) fails with `ForeignOriginError`.
   */
  trustedOrigins?: readonly string[] | undefined;
  /**
   * Per-attempt deadline of ordinary calls, the answer's body included (default 30 s; link capture
   * has its own, longer one).
   */
  timeoutMs?: number | undefined;
  /**
   * Observers of every request of every part (uploads, links, promotions, reference data):
   * `beforeRequest`, `afterResponse`, `beforeRetry`, each told method, redacted URL, attempt,
   * correlation id and, when known, status, duration and error. Never a header.
   */
  hooks?: RequestHooks | undefined;
  /**
   * Where request lines (`debug`; `warn` when one failed) and retry lines (`info`) go: `console`, pino,
   * winston... Default: none, or `console` when debug is on.
   */
  logger?: Logger | undefined;
  /**
   * Logs one line per request and per retry (through `logger`, else `console`). Default:
   * `PROMO_REVIEW_DEBUG` (`1`, `true`, `yes`, `on`), off where there is no environment.
   */
  debug?: boolean | undefined;
  /**
   * Your application, named in the `User-Agent` after the SDK (`MyApp/1.2 (+https://example.com)`).
   * In browsers no `User-Agent` is set at all.
   */
  appInfo?: AppInfo | undefined;
  /**
   * Retry policy overrides for every request of every part (see `@promo-review/http`; for upload
   * chunks `limit` is failed attempts in a row), or `false` for a single attempt each. Each operation
   * may override it with its own `retry`.
   */
  retry?: Partial<RetryPolicy> | false | undefined;
  /** The environment to read settings from (default: `process.env` where there is one). */
  env?: Record<string, string | undefined> | undefined;
  /**
   * What observes every operation of every part (`promotions.create`, `links.capture`,
   * `uploads.upload`, `reference.channels`, the flows such as `evaluateAndWait`, `webhooks.verify`),
   * each HTTP attempt, the budget's waits and the webhook outcomes: `openTelemetry({ tracerProvider,
   * meterProvider, propagateTraceContext })` from `@promo-review/opentelemetry` (installed beside the
   * SDK), or any `Observer` of `@promo-review/errors/observe`. Given to both HTTP clients, the budget
   * the client makes, the uploader, link capture and the webhook verifier. Default: none, and then no
   * observation code runs.
   */
  telemetry?: Observer | undefined;
}

/** The main-API operations, named as in the service's interface. */
export type Promotions = Omit<PromotionsClient, "reference" | "http">;

/**
 * The uploader without its HTTP client: the client holds the credentials, so the facade hands out
 * operations only (nothing a logger or `util.inspect` could print a key from).
 */
export type Uploads = Omit<Uploader, "http">;

/** Link capture without its HTTP client, for the same reason as {@link Uploads}. */
export type Links = Omit<LinkCapture, "http">;

/** One client for the whole service. */
export interface PromoReviewClient {
  /** The resolved, non-secret settings. */
  readonly settings: {
    baseUrl: string;
    filesUrl: string;
    externalUserId: string;
    externalUserEmail?: string;
  };
  /** The shared main-API budget (`undefined` when turned off); its events say when calls wait. */
  readonly budget: RateBudget | undefined;
  /** Uploads to the file service: `upload(source, { fileName?, contentType?, signal?, onProgress?, timeoutMs?, retry? })`. */
  readonly uploads: Uploads;
  /** Link capture: `capture(url, { designFrameId?, signal?, timeoutMs?, retry? })`. */
  readonly links: Links;
  /** Promotions, versions, submit, decisions, evaluation. */
  readonly promotions: Promotions;
  /** Channels, jurisdictions, products and target markets, cached for a day. */
  readonly reference: ReferenceData;
  /** Webhook verification and receiving: `verify({ headers, body })`, `handler()`, `nodeHandler()`, `on()`. */
  readonly webhooks: WebhookVerifier;
  /** The end-to-end flows: a promotion from a file, a link or text; submit and decide; evaluate and wait. */
  readonly flows: Flows;
  /**
   * Batches of promotions that survive a crash: `run(items, { journal, concurrency?, signal?,
   * retryAmbiguous?, openFile?, onProgress? })` yields one outcome per item.
   */
  readonly batch: Batch;
}

/**
 * Makes the client. Settings come from `config`, else from `PROMO_REVIEW_*` variables; a missing one
 * fails now with an error naming the option and the variable. Every part shares one `fetch`, one
 * main-API budget per key, and one correlation-id policy (a fresh id per operation, kept across its
 * retries, returned on every result and error).
 */
export function createClient(config: ClientConfig = {}): PromoReviewClient {
  const settings = resolveSettings(config, config.env);
  // One observer for every part; without one no observation code runs anywhere.
  const { telemetry } = config;
  // On the client's store, one budget per key for every process sharing it.
  const budgetChoice = config.rateBudget ?? (config.store && { store: config.store });
  const budget = chooseBudget(budgetChoice, settings.apiKey, settings.baseUrl, telemetry);
  const webhookSecrets = settings.webhookSecret === undefined ? [] : [settings.webhookSecret].flat();
  const logger = config.logger ?? (debugEnabled(config.debug, config.env) ? console : undefined);
  const common = {
    apiKey: settings.apiKey,
    externalUserId: settings.externalUserId,
    externalUserEmail: settings.externalUserEmail,
    // A service that echoes what it was sent could only echo the key, but a proxy or a misplaced
    // setting could show the webhook secret too: every error of the client redacts both.
    redactAlso: webhookSecrets,
    sdkVersion: SDK_VERSION,
    // The HTTP client reads an option left undefined as not given, so each is passed as it is.
    hooks: config.hooks,
    logger,
    appInfo: config.appInfo,
    fetch: config.fetch,
    // 0 (like absence) means the default deadline, not none.
    timeoutMs: config.timeoutMs || undefined,
    trustedOrigins: config.trustedOrigins,
    retry: config.retry,
    telemetry,
  };
  const main: HttpClient = createHttpClient({
    ...common,
    baseUrl: settings.baseUrl,
    budget,
  });
  // The file service has no stated budget (chunk PUT and status are not limited), so none here.
  const files: HttpClient = createHttpClient({ ...common, baseUrl: settings.filesUrl });
  const { http: _files, ...uploads } = createUploader({
    http: files,
    retry: config.retry,
    // The uploader's own warnings (a web storage store that cannot keep entries) go to the same logger.
    logger,
    store: config.resumeStore ?? config.store,
    telemetry,
  });
  const { http: _main, ...links } = createLinkCapture({ http: main, telemetry });
  const {
    reference,
    http: _http,
    ...promotions
  } = createPromotionsClient({
    http: main,
    validate: config.validate,
    referenceCache: config.referenceCache,
    // A 409 upload_not_ready is waited out on the file service's status, which costs no main-API budget.
    // Under the creation's operation, as the wait is part of it.
    waitForUploads: async (uploadIds, { signal, parent }) => {
      await Promise.all(uploadIds.map((id) => uploads.waitForCompletion(id, { signal, parent })));
    },
  });
  const webhooks = settings.webhookSecret
    ? createWebhookVerifier({
        webhookSecret: settings.webhookSecret,
        store: config.replayStore ?? config.store,
        telemetry,
      })
    : unconfiguredWebhooks();
  const client = {
    settings: {
      baseUrl: settings.baseUrl,
      filesUrl: settings.filesUrl,
      externalUserId: settings.externalUserId,
      // Settings the caller sees and may print: no `externalUserEmail` key at all when none is set.
      ...(settings.externalUserEmail ? { externalUserEmail: settings.externalUserEmail } : {}),
    },
    budget,
    uploads,
    links,
    promotions,
    reference,
    webhooks,
  };
  const flows = createFlows({
    ...client,
    hasWebhooks: Boolean(settings.webhookSecret),
    telemetry,
    redact: main.redact,
  });
  const batch = createBatch({
    uploads,
    links,
    promotions,
    onBudgetWait: budget
      ? (listener) => {
          budget.on("waiting", listener);
          return () => budget.off("waiting", listener);
        }
      : undefined,
  });
  return { ...client, flows, batch };
}

/** A verifier whose every use says how to configure the secret, instead of failing every signature. */
function unconfiguredWebhooks(): WebhookVerifier {
  const refuse = (): never => {
    throw localValidationError(
      [
        {
          field: "webhookSecret",
          message:
            "is required to verify webhooks: pass it to createClient or set PROMO_REVIEW_WEBHOOK_SECRET",
        },
      ],
      "Webhooks are not configured",
    );
  };
  // The methods that answer with a promise reject; the others throw.
  const rejected = async () => refuse();
  const verifier: WebhookVerifier = {
    verify: rejected,
    verifyDelivery: rejected,
    verifySignature: rejected,
    release: rejected,
    dispatch: rejected,
    on: refuse,
    off: () => verifier,
    handler: refuse,
    nodeHandler: refuse,
  };
  return verifier;
}
