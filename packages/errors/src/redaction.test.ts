import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PromoReviewError, redactSecrets, ServerError } from "./index.js";
import { errorFromHttp, errorFromTransport, excerpt } from "./internal.js";

const KEY = "sk_live_4f9a8b7c6d5e4f3a2b1c";

function everyRendering(error: Error): string {
  return [
    error.message,
    String(error),
    error.stack,
    JSON.stringify(error),
    inspect(error, { depth: 10 }),
  ].join("\n");
}

describe("secrets never leak from an error", () => {
  it("a body that echoes the Authorization header is redacted everywhere", () => {
    const body = `<html>Bad request: Authorization: Bearer ${KEY} was sent</html>`;
    const error = errorFromHttp({ status: 502, body, headers: new Headers() }, { secrets: [KEY] });
    expect(everyRendering(error)).not.toContain(KEY);
    expect(error.bodyExcerpt).toContain("[REDACTED]");
  });

  it("a configured secret without a label is redacted too", () => {
    const body = JSON.stringify({
      error: { code: "UNAUTHORIZED", message: `key ${KEY} revoked` },
      correlationId: "c",
    });
    const error = errorFromHttp({ status: 401, body, headers: new Headers() }, { secrets: [KEY] });
    expect(everyRendering(error)).not.toContain(KEY);
  });

  it("a cause carrying a request with headers is copied without them", () => {
    const cause = Object.assign(new TypeError(`fetch failed for Bearer ${KEY}`), {
      request: { headers: { authorization: `Bearer ${KEY}` } },
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    const error = errorFromTransport(cause, {
      method: "GET",
      url: `https://api.example.test/v1/x?api_key=${KEY}`,
    });
    const rendered = everyRendering(error) + inspect(error.cause, { depth: 10 });
    expect(rendered).not.toContain(KEY);
    expect(error.message).toContain("ECONNRESET");
    expect((error.cause as { cause?: { code?: string } }).cause?.code).toBe("ECONNRESET");
  });

  it("redacts whsec_ secrets and credential-named fields", () => {
    expect(redactSecrets("secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).not.toContain("MfKQ9r8");
    expect(redactSecrets('{"apiKey":"abc123xyz"}')).toBe('{"apiKey":"[REDACTED]"}');
    expect(redactSecrets("token=abc&x=1")).toBe("token=[REDACTED]&x=1");
    expect(excerpt("a\n\n  b", [], 10)).toBe("a b");
    expect(redactSecrets("authorization: sk_live_abc")).toBe("authorization: [REDACTED]");
  });

  it("leaves prose that merely names a credential field alone", () => {
    expect(redactSecrets("apiKey: contains white space")).toBe("apiKey: contains white space");
  });

  it("no random secret survives in any rendering (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/),
        fc.string(),
        fc.string(),
        (secret, before, after) => {
          const body = `${before}Authorization: Bearer ${secret}${after}`;
          const error = errorFromHttp({ status: 500, body, headers: new Headers() }, { secrets: [secret] });
          const made = new ServerError({
            code: "X",
            message: `${before}${secret}${after}`,
            secrets: [secret],
          });
          return !everyRendering(error).includes(secret) && !everyRendering(made).includes(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("messages a person can act on", () => {
  it("name the code, the field, the limit and the correlation id", () => {
    const body = JSON.stringify({
      error: {
        code: "VALIDATION_ERROR",
        message: "Validation failed",
        details: [
          { type: "field_error", field: "variations.2.details", message: "must be at most 1500 characters" },
          { type: "constraint_violation", constraint: "max_length", limit: 1500, actual: 1733 },
        ],
      },
      correlationId: "7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6",
    });
    const error = errorFromHttp({ status: 400, body, headers: new Headers() });
    expect(error.message).toContain("VALIDATION_ERROR");
    expect(error.message).toContain("HTTP 400");
    expect(error.message).toContain("variations.2.details: must be at most 1500 characters");
    expect(error.message).toContain("max_length: limit 1500, actual 1733");
    expect(error.message).toContain(
      "correlation id 7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6 (quote it to support)",
    );
    expect(error.toJSON()).toMatchObject({ code: "VALIDATION_ERROR", status: 400, retryable: false });
    expect(error.name).toBe("ValidationError");
    expect(new PromoReviewError({ code: "X", message: "m" }).name).toBe("PromoReviewError");
  });
});
