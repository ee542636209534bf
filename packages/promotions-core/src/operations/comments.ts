/**
 * The comment reply, declared once. Its path and answer are not shown in the spec: docs/gaps.md row 14
 * chose `POST /v1/comments` answering 201 (a client's `commentReplyPath` may replace the path).
 */
import type { OperationDeclaration } from "@promo-review/http";
import * as v from "valibot";
import { commentReplyResponseSchema } from "../schemas/responses.js";

/** The reply body: the caller's fields, with the issue's `commentId` sent as `parentCommentId`. */
const commentReplyRequestSchema = v.looseObject({ parentCommentId: v.string() });

/**
 * Replies to the comment behind an evaluation issue (`parentCommentId`). Resent only on
 * `PARENT_NOT_FOUND` (the parent not indexed yet: nothing was created).
 */
export const replyToComment = {
  name: "promotions.replyToComment",
  method: "POST",
  path: "/v1/comments",
  request: commentReplyRequestSchema,
  response: commentReplyResponseSchema,
  statuses: [201],
  resend: "notProcessed",
  budget: "shared",
} as const satisfies OperationDeclaration;
