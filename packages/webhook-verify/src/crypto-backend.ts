/** What is signed: `${id}.${timestamp}.` followed by the body's bytes, exactly as received. */
export interface SignedContent {
  /** The `webhook-id` header. */
  id: string;
  /** The `webhook-timestamp` header, as sent (unix seconds). */
  timestamp: string;
  /** The raw body; a string stands for its UTF-8 bytes. */
  body: string | Uint8Array;
}

/**
 * The crypto one runtime offers, behind one interface so that the verifier is written once:
 * `node:crypto` under the package's `node` export condition (synchronous, the fast path) and Web
 * Crypto everywhere else. Each factory imports its key once; the function it returns is called per
 * delivery.
 */
export interface CryptoBackend {
  /** Which implementation this is, for diagnostics and tests. */
  readonly name: "node" | "web";
  /** Base64 of HMAC-SHA256 over the signed content, with the key prepared once. */
  hmacSigner(key: Uint8Array): (content: SignedContent) => string | Promise<string>;
  /** Checks a raw 64-byte Ed25519 signature against a raw 32-byte public key. */
  ed25519Verifier(
    publicKey: Uint8Array,
  ): (content: SignedContent, signature: Uint8Array) => boolean | Promise<boolean>;
  /** Compares two signature strings in constant time for equal lengths. */
  equalSignatures(a: string, b: string): boolean;
}

/**
 * What `sign` needs of a runtime's crypto: HMAC, and Ed25519 with a private seed. Apart from
 * {@link CryptoBackend}, so that a receiver's bundle carries no signing code.
 */
export interface SigningBackend {
  /** Base64 of HMAC-SHA256 over the signed content, with the key prepared once. */
  hmacSigner: CryptoBackend["hmacSigner"];
  /** Base64 Ed25519 signature with a 32-byte private seed. */
  ed25519Signer(seed: Uint8Array): (content: SignedContent) => Promise<string>;
}

/** Whether a value is a thenable, so that synchronous results skip a microtask. */
export function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

// DER wrappers that turn raw Ed25519 keys into the SPKI / PKCS#8 forms both APIs import
// (RFC 8410: OID 1.3.101.112). Raw import of private keys is not offered by either API.
const SPKI_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
const PKCS8_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/** An Ed25519 public key in SPKI DER form. */
export function ed25519Spki(publicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([...SPKI_PREFIX, ...publicKey]);
}

/** An Ed25519 private seed in PKCS#8 DER form. */
export function ed25519Pkcs8(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([...PKCS8_PREFIX, ...seed]);
}
