import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENVIRONMENT_VARIABLES, resolveSettings, ValidationError } from "./index.js";

const complete = {
  PROMO_REVIEW_API_KEY: "sk_env",
  PROMO_REVIEW_BASE_URL: "http://127.0.0.1:1",
  PROMO_REVIEW_FILES_URL: "http://127.0.0.1:2",
  PROMO_REVIEW_USER_ID: "env-user",
};

const explicit = {
  apiKey: "sk_explicit",
  baseUrl: "http://127.0.0.1:1",
  filesUrl: "http://127.0.0.1:2",
  externalUserId: "u",
};

describe("configuration: explicit settings first, then PROMO_REVIEW_* variables", () => {
  it("reads everything from the environment", () => {
    const settings = resolveSettings(
      {},
      { ...complete, PROMO_REVIEW_USER_EMAIL: "a@b.test", PROMO_REVIEW_WEBHOOK_SECRET: "whsec_a, whsec_b" },
    );
    expect(settings).toEqual({
      apiKey: "sk_env",
      baseUrl: "http://127.0.0.1:1",
      filesUrl: "http://127.0.0.1:2",
      externalUserId: "env-user",
      externalUserEmail: "a@b.test",
      webhookSecret: ["whsec_a", "whsec_b"],
    });
  });
  it("lets explicit values win", () => {
    expect(resolveSettings({ apiKey: "sk_explicit", webhookSecret: "whsec_x" }, complete)).toMatchObject({
      apiKey: "sk_explicit",
      webhookSecret: "whsec_x",
    });
  });
  it("names every missing setting with its variable", () => {
    const error = (() => {
      try {
        resolveSettings({}, {});
      } catch (e) {
        return e;
      }
    })() as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.local).toBe(true);
    expect(error.fieldErrors.map((f) => f.field)).toEqual([
      "apiKey",
      "externalUserId",
      "baseUrl",
      "filesUrl",
    ]);
    for (const name of [
      "PROMO_REVIEW_API_KEY",
      "PROMO_REVIEW_USER_ID",
      "PROMO_REVIEW_BASE_URL",
      "PROMO_REVIEW_FILES_URL",
    ]) {
      expect(error.message).toContain(name);
    }
  });
  it("refuses a URL that is not http(s), whatever it is (property)", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^https?:\/\/[^/\s]+/i.test(s.trim()) && s.trim() !== ""),
        (url) => {
          expect(() => resolveSettings({ baseUrl: url }, complete)).toThrow(
            /baseUrl: must be an http\(s\) URL/,
          );
        },
      ),
      { numRuns: 100 },
    );
  });
  it("treats an environment that refuses reads (Deno without --allow-env) as empty", () => {
    const refusing = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        throw new Error(`NotCapable: Requires env access to "${String(name)}"`);
      },
    });
    expect(resolveSettings({ ...explicit }, refusing)).toMatchObject({
      apiKey: "sk_explicit",
      webhookSecret: undefined,
    });
    expect(() => resolveSettings({}, refusing)).toThrow(/PROMO_REVIEW_API_KEY/);
  });

  it("documents one variable per setting", () => {
    expect(Object.values(ENVIRONMENT_VARIABLES)).toHaveLength(6);
  });
});
