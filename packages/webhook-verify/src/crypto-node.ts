/// <reference types="node" />
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  type KeyObject,
  sign as signBytes,
  timingSafeEqual,
  verify as verifyBytes,
} from "node:crypto";
import type { SigningBackend } from "./crypto-backend.js";
import { type CryptoBackend, ed25519Pkcs8, ed25519Spki, type SignedContent } from "./crypto-backend.js";

// Only the `node` entry imports this file, so the main (web) entry stays free of Node built-ins.

function signedBuffer(content: SignedContent): Buffer {
  const prefix = Buffer.from(`${content.id}.${content.timestamp}.`, "utf8");
  const body = typeof content.body === "string" ? Buffer.from(content.body, "utf8") : content.body;
  return Buffer.concat([prefix, body]);
}

/**
 * `node:crypto`: HMAC with a `KeyObject` made once per secret, computed synchronously (no thread-pool
 * round trip, no promise), compared with `timingSafeEqual`.
 */
export const nodeCrypto: CryptoBackend = {
  name: "node",
  hmacSigner(key) {
    const secret: KeyObject = createSecretKey(key);
    return (content) =>
      createHmac("sha256", secret)
        .update(`${content.id}.${content.timestamp}.`, "utf8")
        .update(content.body)
        .digest("base64");
  },
  ed25519Verifier(publicKey) {
    const key = createPublicKey({ key: Buffer.from(ed25519Spki(publicKey)), format: "der", type: "spki" });
    return (content, signature) => verifyBytes(null, signedBuffer(content), key, signature);
  },
  equalSignatures(a, b) {
    // UTF-8 is injective, so equal bytes mean equal strings (latin1 would fold U+0141 onto "A").
    const left = Buffer.from(a, "utf8");
    const right = Buffer.from(b, "utf8");
    return left.length === right.length && timingSafeEqual(left, right);
  },
};

/** `node:crypto`'s signing, for `sign`: HMAC as the verifier computes it, and Ed25519 with a private seed. */
export const nodeSigning: SigningBackend = {
  hmacSigner: nodeCrypto.hmacSigner,
  ed25519Signer(seed) {
    const key = createPrivateKey({ key: Buffer.from(ed25519Pkcs8(seed)), format: "der", type: "pkcs8" });
    return async (content) => signBytes(null, signedBuffer(content), key).toString("base64");
  },
};
