/**
 * Byte helpers that run on every runtime (no `Buffer`): UTF-8, base64 and a constant-time
 * comparison. Both crypto paths use the same base64 rules, so a secret or signature is read the same
 * way under `node:crypto` and Web Crypto. Base64 goes through `btoa` and `atob`, which every runtime
 * we support has (Node, workerd, Deno, Bun, browsers, edge-runtime).
 */

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as `TextEncoder` and `Buffer` both do). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Standard base64 with padding, the form Standard Webhooks signatures are written in. For short
 * inputs only (a MAC, a signature, an id): the bytes are spread into one call.
 */
export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Decodes base64 (standard or URL-safe alphabet, padding optional). Returns `undefined` for anything
 * else instead of skipping stray characters as `Buffer.from(s, "base64")` does, so that a mangled
 * secret is reported rather than silently turned into another key.
 */
export function fromBase64(text: string): Uint8Array | undefined {
  // `atob` skips whitespace, so the alphabet is checked first; it knows only the standard alphabet,
  // so the URL-safe one is translated; it refuses the wrong lengths and misplaced padding itself.
  if (!/^[\w+/-]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Compares two strings in time that depends only on their lengths (signatures have a fixed length). */
export function timingSafeEqualStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
