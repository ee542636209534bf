/**
 * The HTTP plumbing shared by the SDK's service packages: authentication headers, correlation ids,
 * the origin policy, deadlines over the whole exchange, mapping every failure to `@promo-review/errors`,
 * safe retries, and a slot for a rate budget: one `fetch` pipeline every package calls.
 * @packageDocumentation
 */
export type { ExpectedStatuses } from "./attempt.js";
export type { BudgetAdmission, BudgetedRequest, RequestBudget } from "./budget.js";
export {
  type ConnectionOptions,
  createHttpClient,
  createHttpCore,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type HttpClient,
  type HttpClientOptions,
  type HttpCoreOptions,
  type HttpResult,
  type RequestOptions,
} from "./client.js";
export {
  type HttpClientDefaults,
  type HttpClientSource,
  httpClientFrom,
  httpCoreFrom,
} from "./client-from.js";
export {
  type ApiKeyCredentials,
  type CredentialFields,
  type CredentialIssue,
  type Credentials,
  checkCredentials,
  credentialIssues,
  type SessionCredentials,
} from "./credentials.js";
export { type Deadline, deadlineSignal, type StartableDeadline, startableDeadline } from "./deadline.js";
export type { RequestEvent, RequestHooks, RetryEvent } from "./hooks.js";
export type { Logger, LogLevel } from "./logger.js";
export type { ObservabilityOptions } from "./observability-options.js";
export type { CompositeOperation, OperationDeclaration, OperationRoute, ResendRule } from "./operation.js";
export type { OriginPolicy } from "./origin.js";
export { type PollBackoff, type PollCheck, type PollOptions, type PollPause, poll } from "./poll.js";
export { type HopContext, MAX_REDIRECTS } from "./redirect.js";
export type { RequestBody } from "./request-body.js";
export {
  type CallControl,
  callControl,
  notRequested,
  type ResponseMetadata,
  responseMetadata,
  type WithResponse,
  withResponse,
} from "./response-metadata.js";
export {
  DEFAULT_RETRY,
  isSafeToRetry,
  type RetryLoop,
  type RetryPolicy,
  retryDelay,
  retrying,
  sleep,
} from "./retry.js";
export {
  type OperationAnswer,
  type OperationCall,
  type OperationResult,
  type RunContext,
  type RunnableDeclaration,
  runOperation,
  sendOperation,
  uuidDetails,
} from "./run-operation.js";
export { checkAnswer, checkBody, type Schema } from "./schema-check.js";
export {
  type AddIssue,
  addIssueAt,
  type BrokenLimit,
  isMissingKey,
  issueField,
  toLocalIssues,
} from "./schema-issues.js";
export { checkId, fillPath, type RouteRequest, sendRoute } from "./send-route.js";
export { settleBoundMs } from "./settle-bound.js";
export { setLongTimeout } from "./timers.js";
export { newCorrelationId, resolveUrl } from "./url.js";
export { type AppInfo, runtimeOf, type UserAgentOptions, userAgent } from "./user-agent.js";
export { HTTP_VERSION } from "./version.js";
