/**
 * `instanceof` that works across two installed copies of this package (a bundled copy in one
 * dependency, another in the app): each error carries the list of its class kinds under a global
 * symbol, and every class answers `instanceof` by looking its own kind up in that list.
 */
export const KINDS: unique symbol = Symbol.for("@promo-review/errors.kinds") as never;

/** The kinds of a constructor and all its ancestors, most derived first. */
export function kindsOf(ctor: unknown): string[] {
  const kinds: string[] = [];
  let current: unknown = ctor;
  while (typeof current === "function") {
    const kind: unknown = (current as { kind?: unknown }).kind;
    if (Object.hasOwn(current, "kind") && typeof kind === "string") kinds.push(kind);
    current = Object.getPrototypeOf(current);
  }
  return kinds;
}

/** Whether `value` was made by a class of kind `kind`, in this copy of the package or another. */
export function hasKind(value: unknown, kind: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  const kinds = (value as { [KINDS]?: unknown })[KINDS];
  return Array.isArray(kinds) && kinds.includes(kind);
}
