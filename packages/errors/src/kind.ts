/**
 * What a value is, for a message, with its article: `an object`, `a string`, `an array`, `null`,
 * `undefined`. One place, so no message says "a object".
 */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
