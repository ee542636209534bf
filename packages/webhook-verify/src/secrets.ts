import { fromBase64 } from "./bytes.js";
import { refuse } from "./refuse.js";

/** A configured secret, read once when the verifier is made. */
export type ParsedSecret =
  | { kind: "hmac"; key: Uint8Array }
  | { kind: "ed25519-public"; key: Uint8Array }
  | { kind: "ed25519-private"; seed: Uint8Array };

/**
 * Reads an Ed25519 signing key (`whsk_`) into its 32-byte seed, or refuses it naming `label`. Only
 * `sign` passes one (it lives in sign.ts), so a receiver's bundle carries no signing-key code.
 */
export type ReadSigningKey = (key: Uint8Array, label: string) => Uint8Array;

/** A secret as configured: `whsec_<base64>` (HMAC), `whpk_<base64>` (Ed25519 public key), or raw key bytes. */
export type WebhookSecret = string | Uint8Array;

/**
 * Reads one secret. Everything wrong with it is reported here, when the verifier is made, rather
 * than as a signature mismatch on every delivery: whitespace (a trailing newline from an env file is
 * the usual cause), a missing value (an unset environment variable), text that is not base64, or a
 * private key where a public one belongs.
 */
export function parseSecret(
  secret: unknown,
  index = 0,
  count = 1,
  readSigningKey?: ReadSigningKey,
): ParsedSecret {
  const label = count > 1 ? `webhook secret #${index + 1}` : "webhook secret";
  if (secret instanceof Uint8Array) {
    if (secret.length === 0) throw refuse("secret_format", `The ${label} is empty`);
    return { kind: "hmac", key: Uint8Array.from(secret) };
  }
  if (typeof secret !== "string") {
    throw refuse(
      "secret_format",
      `The ${label} is ${secret === null ? "null" : typeof secret}, not a string: is the environment variable (for example PROMO_REVIEW_WEBHOOK_SECRET) set?`,
    );
  }
  if (secret.length === 0) {
    throw refuse("secret_format", `The ${label} is an empty string: is the environment variable set?`);
  }
  if (/\s/.test(secret)) {
    const where = /^\s|\s$/.test(secret) ? "at its start or end" : "inside it";
    throw refuse(
      "secret_format",
      `The ${label} contains whitespace ${where} (a trailing newline from an env file, or a copy-paste): remove it; secrets are whsec_ followed by base64 with no spaces`,
    );
  }
  // No prefix: base64 alone, as the standardwebhooks package also accepts.
  const [, prefix = "", encoded = ""] = /^(whsec_|whpk_|whsk_)?(.*)$/.exec(secret) ?? [];
  if (prefix === "whsk_" && !readSigningKey) {
    throw refuse(
      "secret_format",
      `The ${label} is an Ed25519 signing key (whsk_); a receiver verifies with the public key (whpk_) instead`,
    );
  }
  const key = fromBase64(encoded);
  if (!key || key.length === 0) {
    throw refuse(
      "secret_format",
      `The ${label} is not ${prefix || "whsec_"} followed by base64: copy the whole secret as shown for the endpoint`,
    );
  }
  if (prefix === "whpk_") {
    if (key.length !== 32) {
      throw refuse(
        "secret_format",
        `The ${label} (whpk_) must hold a 32-byte Ed25519 public key; it holds ${key.length} bytes`,
      );
    }
    return { kind: "ed25519-public", key };
  }
  if (prefix === "whsk_" && readSigningKey)
    return { kind: "ed25519-private", seed: readSigningKey(key, label) };
  return { kind: "hmac", key };
}

/** Reads the configured secret or secrets (several during a rotation); at least one is required. */
export function parseSecrets(secrets: unknown, readSigningKey?: ReadSigningKey): ParsedSecret[] {
  const list: unknown[] = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0) {
    throw refuse(
      "secret_format",
      "No webhook secret is configured: pass `webhookSecret` (one whsec_ string or several)",
    );
  }
  return list.map((secret, index) => parseSecret(secret, index, list.length, readSigningKey));
}
