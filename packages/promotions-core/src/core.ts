/**
 * The slim path's client: `createPromotionsCore` holds what every operation of the main API shares (a
 * checked HTTP client with the origin policy, the budget and the typed errors, whether bodies are
 * validated, how a 409 `upload_not_ready` is waited out, where an evaluation is read back), and no
 * operation. Each operation is a standalone function that takes it (`promotionsCreate(core, body)`),
 * so a bundle holds the operations it calls and no other.
 * @packageDocumentation
 */
import type { HttpClient, HttpClientSource } from "@promo-review/http";
import { httpCoreFrom } from "@promo-review/http";
import type { UploadWaiter, UploadWaitOptions } from "./upload-wait.js";

/**
 * How to reach the main API: `baseUrl` with the flat credentials (`apiKey`, `externalUserId`,
 * `externalUserEmail`) and the connection options of `@promo-review/http` (`fetch`, `timeoutMs`,
 * `retry`, `trustedOrigins`, `appInfo`, a rate `budget`, `telemetry`), or a ready `http` client (then
 * those go unused). `hooks` and `logger` are not read here, so that their code stays out of a slim
 * bundle: pass `http: createHttpClient({ ..., hooks, logger })` to have them.
 */
export interface PromotionsCoreOptions extends Omit<HttpClientSource, "hooks" | "logger"> {
  /** The main API's base URL. Needed unless `http` is given. */
  baseUrl?: string | undefined;
  /** Check every request body before sending. Default true; only turn off to test the service itself. */
  validate?: boolean | undefined;
  /**
   * Waits until uploads are ready, used when a creation answers 409 `upload_not_ready` (upload-chunker's
   * `waitForCompletion` for each id). Without it, the request is sent again with backoff, each attempt
   * spending the main-API budget.
   */
  waitForUploads?: UploadWaiter | undefined;
  /** Longest total wait for uploads that are not ready. Default 120 000 ms. */
  uploadWaitTimeoutMs?: number | undefined;
  /** First backoff step when no `waitForUploads` is given. Default 500 ms. */
  uploadRetryDelayMs?: number | undefined;
  /**
   * Where an evaluation is read back. Not shown in the spec; default
   * `/v1/promotions/{promotionId}/versions/{versionId}/evaluations/{evaluationId}`.
   */
  evaluationPath?: ((promotionId: string, versionId: string, evaluationId: string) => string) | undefined;
}

/** What the standalone operations share: made once by {@link createPromotionsCore}, read by each call. */
export interface PromotionsCore {
  /** The main-API client in use. */
  readonly http: HttpClient;
  /** Whether request bodies are checked before sending. */
  readonly validate: boolean;
  /** How a 409 `upload_not_ready` is waited out. */
  readonly uploadWait: UploadWaitOptions;
  /** Where an evaluation is read back, when not at the default path. */
  readonly evaluationPath?: PromotionsCoreOptions["evaluationPath"];
}

/**
 * Makes the slim path's client. Credentials and `baseUrl` are checked now (one `ValidationError`
 * naming each problem, never a value); nothing is sent until an operation is called, and no timer
 * runs between operations. The same checks as `createPromotionsClient`'s, without the reference
 * cache, the hooks and the logger.
 */
export function createPromotionsCore(options: PromotionsCoreOptions): PromotionsCore {
  const http = httpCoreFrom(options, {
    client: "createPromotionsCore",
    baseUrlField: "baseUrl",
    baseUrl: options.baseUrl,
  });
  return promotionsCoreOf(http, options);
}

/** The core of `http` with the operations' options: what `createPromotionsClient` runs its operations on too. */
export function promotionsCoreOf(
  http: HttpClient,
  options: Omit<PromotionsCoreOptions, keyof HttpClientSource>,
): PromotionsCore {
  return {
    http,
    validate: options.validate ?? true,
    uploadWait: {
      waitForUploads: options.waitForUploads,
      timeoutMs: options.uploadWaitTimeoutMs ?? 120_000,
      intervalMs: options.uploadRetryDelayMs ?? 500,
    },
    evaluationPath: options.evaluationPath,
  };
}
