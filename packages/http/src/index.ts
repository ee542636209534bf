/**
 * The HTTP plumbing shared by the SDK's service packages: authentication headers, correlation ids,
 * mapping every failure to `@promo-review/errors`, safe retries, and a slot for rate-budget hooks.
 * @packageDocumentation
 */
export type { RequestBody } from "./body.js";
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpResult,
  type RequestOptions,
} from "./client.js";
export {
  type ApiKeyCredentials,
  authHeaders,
  type Credentials,
  checkCredentials,
  type SessionCredentials,
  secretsOf,
} from "./credentials.js";
export { type Deadline, deadlineSignal } from "./deadline.js";
export { DEFAULT_RETRY, isSafeToRetry, type RetryPolicy, retryDelay, sleep } from "./retry.js";
export { newCorrelationId, resolveUrl } from "./url.js";
