import { describe, expect, it } from "vitest";
import { KINDS } from "./brand.js";
import {
  ForeignOriginError,
  isPromoReviewError,
  PromoReviewError,
  REDACTED,
  ValidationError,
  WebhookVerificationError,
} from "./index.js";
import { redactorFor } from "./redact.js";

describe("WebhookVerificationError says which check refused a delivery", () => {
  it("carries the reason, the webhook id and the clock offset, and is never retryable", () => {
    const error = new WebhookVerificationError({
      reason: "timestamp_too_old",
      message: "The webhook timestamp is 412 s old",
      webhookId: "msg_1",
      offsetSeconds: -412,
    });
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(isPromoReviewError(error)).toBe(true);
    expect(error.name).toBe("WebhookVerificationError");
    expect(error.code).toBe("WEBHOOK_VERIFICATION_FAILED");
    expect(error.reason).toBe("timestamp_too_old");
    expect(error.webhookId).toBe("msg_1");
    expect(error.offsetSeconds).toBe(-412);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("412 s old [WEBHOOK_VERIFICATION_FAILED]");
    expect(error.toJSON()).toMatchObject({
      reason: "timestamp_too_old",
      webhookId: "msg_1",
      offsetSeconds: -412,
    });
  });

  it("omits the optional fields from JSON when unknown, and keeps a given code", () => {
    const error = new WebhookVerificationError({
      reason: "bad_signature",
      message: "no match",
      code: "CUSTOM",
    });
    const json = error.toJSON();
    expect(json).not.toHaveProperty("webhookId");
    expect(json).not.toHaveProperty("offsetSeconds");
    expect(json["reason"]).toBe("bad_signature");
    expect(error.code).toBe("CUSTOM");
  });

  it("is recognised by kind, so a copy of the package answers instanceof too", () => {
    const error = new WebhookVerificationError({ reason: "replayed", message: "seen" });
    expect((error as unknown as Record<symbol, string[]>)[KINDS]).toEqual([
      "WebhookVerificationError",
      "PromoReviewError",
    ]);
    const lookalike = { [KINDS]: ["WebhookVerificationError", "PromoReviewError"] };
    expect(lookalike instanceof WebhookVerificationError).toBe(true);
  });

  it("never puts a whsec_ secret into its message", () => {
    const error = new WebhookVerificationError({
      reason: "secret_format",
      message: 'The secret "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw " has whitespace',
    });
    expect(error.message).not.toContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  });
});

describe("an error's JSON is its name, message and every field that has a value", () => {
  it("includes a subclass's own fields and leaves out the unknown ones", () => {
    const origin = new ForeignOriginError({
      origin: "http://127.0.0.1:9",
      expectedOrigin: "http://127.0.0.1:8",
      message: "Refused GET",
    });
    expect(JSON.parse(JSON.stringify(origin))).toStrictEqual({
      name: "ForeignOriginError",
      message: origin.message,
      code: "FOREIGN_ORIGIN",
      details: [],
      retryable: false,
      origin: "http://127.0.0.1:9",
      expectedOrigin: "http://127.0.0.1:8",
    });
    const local = new ValidationError({ code: "VALIDATION_ERROR", message: "bad", local: true });
    expect(local.toJSON()).toMatchObject({ local: true });
    expect(Object.values(local.toJSON())).not.toContain(undefined);
  });

  it("redacts the webhook id with the redactor it was given, as every other field", () => {
    const secret = "sk_live_0123456789abcdef";
    const error = new WebhookVerificationError({
      reason: "replayed",
      message: "seen",
      webhookId: `msg_${secret}`,
      redact: redactorFor([secret]),
    });
    expect(error.webhookId).toBe(`msg_${REDACTED}`);
    expect(JSON.stringify(error)).not.toContain(secret);
  });
});
