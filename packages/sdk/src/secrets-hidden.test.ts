import { startSimulator } from "@promo-review/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useEchoingService } from "../../../testing/echoing-service.ts";
import { reachableStrings, renderingsOf, whereShown } from "../../../testing/renderings.ts";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor } from "../test/support/sim.js";
import { createClient, isPromoReviewError, type PromoReviewError, resolveSettings } from "./index.js";

const sim = useSimulator(startSimulator, { seed: 23, mainApiLimit: 100_000, uploadProcessingDelayMs: 0 });

const UUID = "7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6";

/** The secrets of a client and the forms they could be printed in (a whsec_ key's bare base64 too). */
function secretsOf(apiKey: string, webhookSecret: string): string[] {
  return [apiKey, webhookSecret, webhookSecret.replace(/^whsec_/, "")];
}

/** Asserts no secret is in any rendering of `value`, nor in any string reachable from it. */
function expectHidden(value: unknown, secrets: string[], what: string): void {
  for (const secret of secrets) expect(whereShown(value, secret), `${what} shows ${secret}`).toEqual([]);
}

describe("the facade client and every sub-client print no secret", () => {
  it("client, uploads, links, promotions, reference, webhooks, flows, budget and settings, after use", async () => {
    const client = clientFor(sim());
    const secrets = secretsOf(sim().apiKey, sim().webhookSecret);
    // Used first, so that caches, budgets and stores hold whatever they keep after real calls.
    await client.reference.channels();
    await client.uploads.upload(new TextEncoder().encode("%PDF-1.4 hi"), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    await expect(client.promotions.get(UUID)).rejects.toThrow();
    for (const [name, part] of Object.entries(client)) expectHidden(part, secrets, `client.${name}`);
    expectHidden(client, secrets, "client");
    // The walk really reaches into the parts (a walker that saw nothing would pass vacuously).
    expect(reachableStrings(client)).toContain(sim().baseUrl);
    expect(Object.keys(renderingsOf(client))).toEqual([
      "inspect",
      "consoleLog",
      "string",
      "json",
      "structuredClone",
      "logger",
    ]);
  });

  it("hands out no HTTP client, which holds the credentials", () => {
    const client = clientFor(sim());
    expect("http" in client.uploads).toBe(false);
    expect("http" in client.links).toBe(false);
    expect("http" in client.promotions).toBe(false);
  });
});

const echo = useEchoingService();

async function failureOf(run: () => Promise<unknown>): Promise<PromoReviewError> {
  try {
    await run();
  } catch (error) {
    if (isPromoReviewError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("errors from a service that echoes the key show it nowhere", () => {
  const keys = ["pr_live_EchoedKey_0123456789abcdef", "Zq", "§"];
  for (const apiKey of keys) {
    it(`key of ${apiKey.length} characters, in message, details, code, body and header correlation ids`, async () => {
      const client = createClient({
        apiKey,
        externalUserId: "u1",
        baseUrl: echo(),
        filesUrl: `${echo()}/files`,
        rateBudget: false,
        env: {},
      });
      const failures = [
        await failureOf(() => client.promotions.get(UUID)),
        await failureOf(() => client.reference.jurisdictions()),
        await failureOf(() => client.uploads.status(UUID)),
        await failureOf(() => client.links.capture("https://example.test/page")),
      ];
      for (const error of failures) {
        // The service did say something: the error is its answer, with the key taken out.
        expect(error.status).toBe(400);
        expect(error.correlationId).toBeDefined();
        expectHidden(error, [apiKey], error.name);
      }
    });
  }
});

describe("a bad URL setting is not repeated in the configuration error", () => {
  const complete = {
    apiKey: "pr_live_k",
    externalUserId: "u",
    baseUrl: "http://127.0.0.1:1",
    filesUrl: "http://127.0.0.1:2",
  };

  function configError(input: Record<string, string>): PromoReviewError {
    try {
      resolveSettings({ ...complete, ...input }, {});
    } catch (error) {
      if (isPromoReviewError(error)) return error;
    }
    throw new Error("expected a configuration error");
  }

  it("a key pasted as baseUrl is named as a secret in the wrong place, never printed", () => {
    const apiKey = "pr_live_Swapped0123456789";
    const error = configError({ apiKey, baseUrl: apiKey });
    expect(error.fieldErrors[0]).toMatchObject({ field: "baseUrl" });
    expect(error.message).toContain("holds a configured secret");
    expectHidden(error, [apiKey], "config error");
  });

  it("any other value that is not an http(s) URL is described, not echoed (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 12, maxLength: 60, unit: "binary" }), (value) => {
        fc.pre(!/^https?:\/\/[^/\s]+/i.test(value.trim()) && value.trim() !== "");
        const error = configError({ filesUrl: value });
        return (
          error.fieldErrors[0]?.field === "filesUrl" &&
          error.message.includes("does not start with http:// or https://") &&
          whereShown(error, value.trim()).length === 0
        );
      }),
      { numRuns: 60 },
    );
  });
});
