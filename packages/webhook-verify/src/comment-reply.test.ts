import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AbortError, ParentNotFoundError, ValidationError } from "@promo-review/errors";
import { createHttpClient } from "@promo-review/http";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_REPLY_PATH, replyToComment } from "./index.node.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A tiny stand-in for the reply endpoint: answers from `script` in turn (the simulator has no replies). */
async function replyServer(script: { status: number; code?: string; retryAfter?: string }[]) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString()),
    });
    const step = script[Math.min(seen.length - 1, script.length - 1)]!;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (step.retryAfter) headers["retry-after"] = step.retryAfter;
    res.writeHead(step.status, headers);
    const correlationId = "0b7c4f2e-9a53-4d1c-8f3e-2a6b1c9d0e11";
    res.end(
      JSON.stringify(
        step.code
          ? { error: { code: step.code, message: "Parent comment not found" }, correlationId }
          : { commentId: "reply-1", correlationId },
      ),
    );
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const credentials = { apiKey: "sk_test_reply", externalUserId: "user-7" };
const NOT_FOUND = { status: 404, code: "PARENT_NOT_FOUND" };

describe("replyToComment retries while the answer is PARENT_NOT_FOUND", () => {
  it("sends commentId as parentCommentId, retries with backoff, and returns the accepted reply", async () => {
    const { baseUrl, seen } = await replyServer([
      NOT_FOUND,
      { ...NOT_FOUND, retryAfter: "0" },
      { status: 201 },
    ]);
    const delays: number[] = [];
    const result = await replyToComment<{ commentId: string }>({
      baseUrl,
      credentials,
      commentId: "c-1",
      body: { content: "Fixed in version 3" },
      random: () => 0,
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    expect(result.replyAttempts).toBe(3);
    expect(result.status).toBe(201);
    expect(result.data.commentId).toBe("reply-1");
    expect(delays).toEqual([0, 0]);
    expect(seen).toHaveLength(3);
    for (const request of seen) {
      expect(request).toMatchObject({
        method: "POST",
        url: DEFAULT_REPLY_PATH,
        body: { content: "Fixed in version 3", parentCommentId: "c-1" },
      });
      expect(request.headers["authorization"]).toBe("Bearer sk_test_reply");
      expect(request.headers["x-external-user-id"]).toBe("user-7");
    }
  });

  it("gives up after maxAttempts with the last ParentNotFoundError", async () => {
    const { baseUrl, seen } = await replyServer([NOT_FOUND]);
    const error = await replyToComment({
      baseUrl,
      credentials,
      commentId: "c-1",
      maxAttempts: 3,
      random: () => 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParentNotFoundError);
    expect(seen).toHaveLength(3);
  });

  it("throws any other error at once", async () => {
    const { baseUrl, seen } = await replyServer([{ status: 400, code: "VALIDATION_ERROR" }]);
    const error = await replyToComment({ baseUrl, credentials, commentId: "c-1", random: () => 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(seen).toHaveLength(1);
  });

  it("stops waiting when the signal aborts", async () => {
    const { baseUrl, seen } = await replyServer([NOT_FOUND]);
    const controller = new AbortController();
    const error = await replyToComment({
      baseUrl,
      credentials,
      commentId: "c-1",
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      random: () => 1,
      signal: controller.signal,
      onRetry: () => controller.abort(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(seen).toHaveLength(1);
  });

  it("takes a configured path (a string or a function of the comment id) and a shared client", async () => {
    const { baseUrl, seen } = await replyServer([{ status: 201 }]);
    const client = createHttpClient({ baseUrl, credentials });
    await replyToComment({ client, commentId: "c-9", path: (id) => `/v1/comments/${id}/replies` });
    await replyToComment({
      baseUrl,
      credentials,
      fetch: globalThis.fetch,
      commentId: "c-9",
      path: "/v2/replies",
    });
    expect(seen.map((s) => s.url)).toEqual(["/v1/comments/c-9/replies", "/v2/replies"]);
  });

  it("needs a client, or a base URL and credentials", async () => {
    await expect(replyToComment({ commentId: "c-1" })).rejects.toBeInstanceOf(ValidationError);
    await expect(replyToComment({ baseUrl: "http://127.0.0.1:1", commentId: "c-1" })).rejects.toThrow(
      /credentials/,
    );
  });
});
