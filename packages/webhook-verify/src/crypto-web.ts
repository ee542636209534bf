import { timingSafeEqualStrings, toBase64, utf8 } from "./bytes.js";
import type { SigningBackend } from "./crypto-backend.js";
import { type CryptoBackend, ed25519Pkcs8, ed25519Spki, type SignedContent } from "./crypto-backend.js";

/** The signed content as one buffer, as Web Crypto takes it. */
function signedBytes({ id, timestamp, body }: SignedContent): Uint8Array<ArrayBuffer> {
  const prefix = `${id}.${timestamp}.`;
  // A text body is encoded with its prefix in one go: the prefix ends in ".", so no character spans the join.
  if (typeof body === "string") return utf8(prefix + body) as Uint8Array<ArrayBuffer>;
  const head = utf8(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

function subtle(): SubtleCrypto {
  // Read at call time, not import time: nothing global is touched until a key is needed.
  return globalThis.crypto.subtle;
}

/**
 * Makes a value (a key import, the costly part) on first use and keeps it once made. A caller that
 * comes while it is being made makes its own rather than awaiting the first caller's promise: in
 * Cloudflare Workers a verifier kept at module scope serves many requests, and a request may wait
 * only on its own I/O (one awaiting another request's import is cancelled as hung, or inherits its
 * failure when that request is cancelled). An import is cheap next to a hang; any key made will do.
 */
function kept<T>(make: () => Promise<T>): () => Promise<T> {
  let held: T | undefined;
  return async () => (held ??= await make());
}

/**
 * Web Crypto's HMAC-SHA256 signer, apart from the backend object so that the signature-only entry
 * takes it without the Ed25519 functions: the key is imported once, on first use.
 */
export function webHmacSigner(key: Uint8Array): (content: SignedContent) => Promise<string> {
  const imported = kept(() =>
    subtle().importKey("raw", Uint8Array.from(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
  );
  return async (content) =>
    toBase64(new Uint8Array(await subtle().sign("HMAC", await imported(), signedBytes(content))));
}

/**
 * Web Crypto (`crypto.subtle`): each key imported once, on first use, and cached; HMAC and Ed25519
 * computed natively. Signatures are compared as strings in constant time.
 */
export const webCrypto: CryptoBackend = {
  name: "web",
  hmacSigner: webHmacSigner,
  ed25519Verifier(publicKey) {
    const imported = kept(() =>
      subtle().importKey("spki", ed25519Spki(publicKey), { name: "Ed25519" }, false, ["verify"]),
    );
    return async (content, signature) =>
      subtle().verify("Ed25519", await imported(), Uint8Array.from(signature), signedBytes(content));
  },
  equalSignatures: timingSafeEqualStrings,
};

/** Web Crypto's signing, for `sign`: HMAC as the verifier computes it, and Ed25519 with a private seed. */
export const webSigning: SigningBackend = {
  hmacSigner: webHmacSigner,
  ed25519Signer(seed) {
    const imported = kept(() =>
      subtle().importKey("pkcs8", ed25519Pkcs8(seed), { name: "Ed25519" }, false, ["sign"]),
    );
    return async (content) =>
      toBase64(new Uint8Array(await subtle().sign("Ed25519", await imported(), signedBytes(content))));
  },
};
