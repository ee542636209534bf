import { fromBase64, toBase64 } from "./bytes.js";
import { type CryptoBackend, isPromiseLike, type SignedContent } from "./crypto-backend.js";
import { refuse } from "./refuse.js";

/**
 * A signature scheme: the version written before the comma in `webhook-signature` (`v1` for
 * HMAC-SHA256, `v1a` for Ed25519) and how to check the values written after it. Pass your own in
 * `schemes` to accept a scheme this package does not know; it sees the same signed content.
 */
export interface SignatureScheme {
  /** The version identifier, for example `v1`. */
  readonly version: string;
  /** Whether any of `signatures` (the values after `<version>,`) is valid for `content`. */
  verify(content: SignedContent, signatures: readonly string[]): boolean | Promise<boolean>;
}

/** What an HMAC scheme needs of a backend, so that the signature-only entry brings no Ed25519 code. */
export type HmacBackend = Pick<CryptoBackend, "hmacSigner" | "equalSignatures">;

function anyEqual(backend: HmacBackend, expected: string, signatures: readonly string[]): boolean {
  for (const signature of signatures) {
    if (backend.equalSignatures(expected, signature)) return true;
  }
  return false;
}

/**
 * Standard Webhooks `v1`: base64 HMAC-SHA256 with each key (several during a rotation). Each key's
 * MAC is computed once per delivery and compared with every `v1` signature. The comparison is of the
 * canonical base64 text, as the reference libraries do, so a signature is accepted in one spelling only.
 */
export function hmacScheme(backend: HmacBackend, keys: readonly Uint8Array[]): SignatureScheme {
  const signers = keys.map((key) => backend.hmacSigner(key));
  return {
    version: "v1",
    verify(content, signatures) {
      const pending: Promise<string>[] = [];
      for (const signer of signers) {
        const expected = signer(content);
        if (isPromiseLike(expected)) pending.push(expected);
        else if (anyEqual(backend, expected, signatures)) return true;
      }
      if (pending.length === 0) return false;
      return Promise.all(pending).then((all) =>
        all.some((expected) => anyEqual(backend, expected, signatures)),
      );
    },
  };
}

/** Decodes a 64-byte signature written in canonical base64 (one spelling per signature), else `undefined`. */
function ed25519Signature(value: string): Uint8Array | undefined {
  if (value.length !== 88) return undefined;
  const bytes = fromBase64(value);
  return bytes && bytes.length === 64 && toBase64(bytes) === value ? bytes : undefined;
}

/**
 * Standard Webhooks `v1a`: Ed25519 with the sender's public keys (`whpk_`). Runs where the runtime
 * offers Ed25519 (Node, Deno, Bun, current browsers and Workers); elsewhere it reports that, instead
 * of a plain mismatch.
 */
export function ed25519Scheme(backend: CryptoBackend, publicKeys: readonly Uint8Array[]): SignatureScheme {
  let verifiers: ReturnType<CryptoBackend["ed25519Verifier"]>[] | undefined;
  return {
    version: "v1a",
    async verify(content, signatures) {
      try {
        verifiers ??= publicKeys.map((key) => backend.ed25519Verifier(key));
        for (const value of signatures) {
          const signature = ed25519Signature(value);
          if (!signature) continue;
          for (const verifier of verifiers) {
            if (await verifier(content, signature)) return true;
          }
        }
        return false;
      } catch (cause) {
        throw refuse(
          "secret_format",
          "Ed25519 (v1a) verification is not available in this runtime: configure a whsec_ secret for v1 signatures",
          { webhookId: content.id, cause },
        );
      }
    },
  };
}
