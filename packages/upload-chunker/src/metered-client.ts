/**
 * An upload, a status read or a wait makes several requests; its result's `$response` describes them
 * together. A metered client is the uploader's HTTP client seen through one such operation: it fills
 * in the operation's `timeoutMs` and `retry` where a request sets none, and keeps the last answer and
 * the number of requests sent.
 */
import {
  type CallControl,
  callControl,
  type HttpClient,
  type HttpResult,
  responseMetadata,
} from "@promo-review/http";
import type { MeteredClient } from "./types.js";

/** Meters `http` for one operation with the caller's per-call `control`. */
export function meteredClient(http: HttpClient, control: CallControl = {}): MeteredClient {
  const started = Date.now();
  const defaults = callControl(control);
  let last: HttpResult<unknown> | undefined;
  let attempts = 0;
  const metered: HttpClient = {
    baseUrl: http.baseUrl,
    redact: http.redact,
    url: (path) => http.url(path),
    async request<T>(path: string, options: Parameters<HttpClient["request"]>[1] = {}) {
      try {
        const result = await http.request<T>(path, {
          ...options,
          timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
          retry: options.retry ?? defaults.retry,
        });
        last = result;
        attempts += result.attempts;
        return result;
      } catch (error) {
        attempts++;
        throw error;
      }
    },
  };
  return {
    http: metered,
    metadata: () =>
      last && { ...responseMetadata(last, http.redact), attempts, durationMs: Date.now() - started },
  };
}
