import { type RawBody, signedBody } from "./body.js";
import { toBase64 } from "./bytes.js";
import type { SignedContent, SigningBackend } from "./crypto-backend.js";
import type { WebhookHeaders } from "./headers.js";
import { refuse } from "./refuse.js";
import { parseSecrets, type WebhookSecret } from "./secrets.js";

/** What `signWith` signs. */
export interface SignOptions {
  /**
   * One key or several (a rotation sends one signature per key): `whsec_<base64>` signs `v1`
   * (HMAC-SHA256), `whsk_<base64>` signs `v1a` (Ed25519 private key, 32-byte seed or 64-byte libsodium form).
   */
  webhookSecret: WebhookSecret | readonly WebhookSecret[];
  /** The body exactly as it will be sent. */
  body: RawBody;
  /** The `webhook-id` (default: `msg_` and 16 random bytes). */
  id?: string;
  /** The `webhook-timestamp`, unix seconds or a `Date` (default: now). */
  timestamp?: number | Date;
}

/** An Ed25519 signing key's seed: 32 bytes is the seed; 64 bytes is the libsodium form, seed followed by the public key. */
export function signingSeed(key: Uint8Array, label: string): Uint8Array {
  if (key.length !== 32 && key.length !== 64) {
    throw refuse(
      "secret_format",
      `The ${label} (whsk_) must hold a 32- or 64-byte Ed25519 key; it holds ${key.length} bytes`,
    );
  }
  return key.subarray(0, 32);
}

function randomId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `msg_${toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}

function unixSeconds(timestamp: number | Date | undefined): number {
  if (timestamp === undefined) return Math.floor(Date.now() / 1000);
  return Math.floor(timestamp instanceof Date ? timestamp.getTime() / 1000 : timestamp);
}

/**
 * Signs a body as a Standard Webhooks sender does and returns the three headers to send with it.
 * For tests of a receiver, and for services that send webhooks themselves.
 */
export async function signWith(backend: SigningBackend, options: SignOptions): Promise<WebhookHeaders> {
  const content: SignedContent = {
    id: options.id ?? randomId(),
    timestamp: String(unixSeconds(options.timestamp)),
    body: signedBody(options.body),
  };
  const signatures: string[] = [];
  for (const secret of parseSecrets(options.webhookSecret, signingSeed)) {
    if (secret.kind === "ed25519-public") {
      throw refuse("secret_format", "A whpk_ public key cannot sign: sign with the whsk_ private key");
    }
    signatures.push(
      secret.kind === "hmac"
        ? `v1,${await backend.hmacSigner(secret.key)(content)}`
        : `v1a,${await backend.ed25519Signer(secret.seed)(content)}`,
    );
  }
  return {
    "webhook-id": content.id,
    "webhook-timestamp": content.timestamp,
    "webhook-signature": signatures.join(" "),
  };
}
