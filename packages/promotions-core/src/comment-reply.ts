import { ParentNotFoundError } from "@promo-review/errors";
import {
  callControl,
  DEFAULT_RETRY,
  type HttpClient,
  type RequestOptions,
  responseMetadata,
  retrying,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import type { ReplyOptions, ReplyResult } from "./types.js";

/**
 * The reply path used when none is configured. The spec does not show the endpoint for posting a
 * comment reply (a documented gap in docs/gaps.md), only that the reply carries `parentCommentId`.
 */
export const DEFAULT_REPLY_PATH = "/v1/comments";

/**
 * Replies to the comment behind an evaluation issue, sending its `commentId` as `parentCommentId`.
 * Comment indexing is asynchronous, so a reply sent right after the webhook may be answered
 * `PARENT_NOT_FOUND`: that means nothing was created, so the reply is sent again with backoff
 * (honouring a `Retry-After`) under the same correlation id until it is accepted, `maxAttempts` is
 * spent (the last `ParentNotFoundError` is thrown) or the signal aborts. Any other error is thrown at
 * once: the reply is a POST and is never resent after an answer that may mean it was created.
 * `observed` (the operation the reply belongs to and the path's template) goes to every attempt's request.
 */
export async function postCommentReply(
  http: HttpClient,
  path: string,
  commentId: string,
  body: Record<string, unknown>,
  options: ReplyOptions & { correlationId: string },
  observed: Pick<RequestOptions, "parent" | "urlTemplate"> = {},
): Promise<WithResponse<ReplyResult>> {
  const maxAttempts = options.maxAttempts ?? 8;
  const policy = {
    ...DEFAULT_RETRY,
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    random: options.random ?? Math.random,
  };
  const json = { ...body, parentCommentId: commentId };
  return retrying(
    async (attempt) => {
      const answer = await http.request<Record<string, unknown>>(path, {
        method: "POST",
        json,
        ...observed,
        ...callControl(options),
        correlationId: options.correlationId,
        signal: options.signal,
      });
      // The reply's response shape is not shown: the parent is the one sent unless the service says.
      const { data, correlationId } = answer;
      const reply = { parentCommentId: commentId, ...data, correlationId, replyAttempts: attempt };
      return withResponse(reply, responseMetadata(answer, http.redact));
    },
    {
      shouldRetry: (error, attempt) => error instanceof ParentNotFoundError && attempt < maxAttempts,
      policy,
      onRetry: (error, attempt, delayMs) =>
        options.onRetry?.({ attempt, error: error as ParentNotFoundError, delayMs }),
      signal: options.signal,
    },
  );
}
