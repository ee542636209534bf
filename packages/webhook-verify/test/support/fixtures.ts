// Shared by the tests: both package entries, secrets and a sample event as the simulator sends it.
import { generateKeyPairSync } from "node:crypto";
import { WebhookVerificationError } from "@promo-review/errors";
import { expect } from "vitest";
import * as webEntry from "../../src/index.js";
import * as nodeEntry from "../../src/index.node.js";

/** Both entries, to run every rule against both crypto paths. */
export const ENTRIES = [
  ["node:crypto", nodeEntry],
  ["Web Crypto", webEntry],
] as const;

export type Entry = typeof nodeEntry;

export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
export const OLD_SECRET = "whsec_dGhlIG9sZCBzZWNyZXQgYmVmb3JlIHJvdGF0aW9u";
export const NOW_MS = 1_700_000_000_000;
export const NOW_S = NOW_MS / 1000;

/** A fresh Ed25519 pair as Standard Webhooks writes it: whsk_ (seed) and whpk_ (public key). */
export function ed25519Pair(): { secretKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const seed = Buffer.from(jwk.d!, "base64url");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  return { secretKey: `whsk_${seed.toString("base64")}`, publicKey: `whpk_${pub.toString("base64")}` };
}

/** An evaluation-completed event as the simulator builds it. */
export function sampleEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "evaluation-completed",
    timestamp: "2023-11-14T22:13:20.000Z",
    data: {
      evaluationId: "3f1c0a8e-2b7d-4c55-9a61-0e9d2f4b7c10",
      promotionId: "8d2e6f10-4a3b-4c1d-9e8f-7a6b5c4d3e2f",
      versionId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      status: "completed",
      issues: [
        {
          issueId: "b8f0d6a2-1c3e-4f5a-8b7c-9d0e1f2a3b4c",
          commentId: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
          severity: "high",
          category: "risk_warning",
          message: "The risk warning is missing — « Capital at risk » 💸",
          excerpt: "Capital at risk",
        },
      ],
      metadata: { campaign: "spring-2024", owner: "team-ü" },
    },
    ...overrides,
  };
}

/** Signs `body` with the entry's own `sign` at the fixed clock. */
export async function signed(
  entry: Entry,
  body: string | Uint8Array,
  webhookSecret: string | string[] = SECRET,
) {
  const headers = await entry.sign({
    webhookSecret,
    body,
    id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    timestamp: NOW_S,
  });
  return { headers, body };
}

/** The `WebhookVerificationError` a promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}
