import { WebhookVerificationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { SECRET } from "../test/support/fixtures.js";
import { createWebhookVerifier } from "./index.node.js";
import { parseSecret, parseSecrets } from "./secrets.js";
import { signingSeed } from "./sign.js";

function refusalOf(make: () => unknown): WebhookVerificationError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error("expected a refusal");
}

describe("a malformed secret fails when the verifier is made, naming the likely mistake", () => {
  it("names whitespace around the secret (a trailing newline from an env file)", () => {
    const error = refusalOf(() => createWebhookVerifier({ webhookSecret: `${SECRET}\n` }));
    expect(error.reason).toBe("secret_format");
    expect(error.message).toContain("whitespace at its start or end");
    expect(error.message).toContain("env file");
    expect(error.message).not.toContain(SECRET.slice(6));
  });

  it("names whitespace inside the secret", () => {
    expect(refusalOf(() => parseSecret("whsec_abc def")).message).toContain("whitespace inside it");
  });

  it("names an unset environment variable, and which secret of several it is", () => {
    expect(refusalOf(() => parseSecret(undefined)).message).toContain("is undefined, not a string");
    expect(refusalOf(() => parseSecret(null)).message).toContain("is null");
    expect(refusalOf(() => parseSecrets([SECRET, ""])).message).toContain(
      "webhook secret #2 is an empty string",
    );
    expect(refusalOf(() => parseSecrets([])).message).toContain("No webhook secret is configured");
    expect(refusalOf(() => createWebhookVerifier({})).reason).toBe("secret_format");
  });

  it("refuses text that is not base64, and a private key where a public one belongs", () => {
    expect(refusalOf(() => parseSecret("whsec_not*base64")).message).toContain(
      "not whsec_ followed by base64",
    );
    expect(refusalOf(() => parseSecret("whsec_")).reason).toBe("secret_format");
    expect(refusalOf(() => parseSecret(new Uint8Array())).message).toContain("empty");
    expect(refusalOf(() => parseSecret("whsk_AAAA")).message).toContain(
      "verifies with the public key (whpk_)",
    );
    expect(refusalOf(() => parseSecret("whpk_AAAA")).message).toContain("32-byte");
    expect(refusalOf(() => parseSecret("whsk_AAAA", 0, 1, signingSeed)).message).toContain("32- or 64-byte");
  });

  it("reads whsec_, unprefixed base64, URL-safe base64, whpk_ and whsk_", () => {
    expect(parseSecret(SECRET)).toMatchObject({ kind: "hmac" });
    expect(parseSecret(SECRET.slice(6))).toEqual(parseSecret(SECRET));
    expect(parseSecret("whsec_-_8")).toEqual({ kind: "hmac", key: Uint8Array.from([0xfb, 0xff]) });
    expect(parseSecret(`whpk_${Buffer.alloc(32, 1).toString("base64")}`)).toMatchObject({
      kind: "ed25519-public",
    });
    expect(parseSecret(`whsk_${Buffer.alloc(64, 2).toString("base64")}`, 0, 1, signingSeed)).toEqual({
      kind: "ed25519-private",
      seed: new Uint8Array(32).fill(2),
    });
  });
});
