/**
 * A short, stable id for an API key, for `createRateBudget({ keyId })` and the Redis store's keys:
 * budgets are named per key without the key itself ever being stored or sent anywhere. Two FNV-1a
 * passes give 64 bits: plenty to tell keys apart, far too little to recover one.
 *
 * @example
 * ```ts
 * createRateBudget({ baseUrl, keyId: keyIdOf(process.env.PROMO_REVIEW_API_KEY!) });
 * ```
 */
export function keyIdOf(apiKey: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ apiKey.length;
  for (let i = 0; i < apiKey.length; i++) {
    const c = apiKey.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return `k${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}
