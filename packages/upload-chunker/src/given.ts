/**
 * Request options from fields that may be empty: the HTTP client's options take an absent field, never
 * an `undefined` one (`exactOptionalPropertyTypes`), and an empty one means "not given".
 */

/** The entries of `fields` that were given (truthy): `undefined`, `""` and `0` are left out. */
export function given<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
