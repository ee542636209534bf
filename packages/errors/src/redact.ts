/** The marker that stands where a credential was. */
export const REDACTED = "[REDACTED]";

// When a configured secret is part of "[REDACTED]" (a one-letter key "R", say), the marker itself
// would show it: "***" is used instead, or nothing when a secret is part of both.
const MARKERS = [REDACTED, "***"];

// Replacing can join text into a new occurrence ("xx[" less "x[" is "x[REDACTED]"), so the secrets
// are replaced again until none is left; past this many passes the whole string is the marker.
const MAX_PASSES = 8;

/**
 * Credentials recognisable by their label or prefix, redacted whether configured or not: each pattern
 * with its replacement, to which the marker is appended (`$1` keeps the label).
 */
const PATTERNS: [RegExp, string][] = [
  // Authorization values: "Bearer <token>", "Basic <credentials>"
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, "$1 "],
  // an Authorization header line with a bare credential
  [/\b(authorization\s*:\s*)(?!Bearer|Basic|\[REDACTED\])[^\s,;]+/gi, "$1"],
  // query strings, fragments and forms: api_key=…, token=…, sig=…, X-Amz-Signature=…, X-Amz-Credential=…
  [
    /\b((?:api[_-]?key|(?:access|session|refresh|id)[_-]?token|token|(?:client[_-]?)?secret|password|sig(?:nature)?|credential)=)[^\s&#"'<>]+/gi,
    "$1",
  ],
  // a bare `key` only as a query parameter: "key=value" in prose is an example, not a credential
  [/([?&#;]key=)[^\s&#"'<>]+/gi, "$1"],
  // JSON fields naming a credential: "apiKey":"…"
  [
    /("(?:api[_-]?key|(?:access|session)[_-]?token|token|(?:(?:webhook|client)[_-]?)?secret|password|authorization|sig(?:nature)?)"\s*:\s*")(?!\[REDACTED\])(?:[^"\\]|\\.)*/gi,
    "$1",
  ],
  // Standard Webhooks secrets and signing keys
  [/\b(whs(?:ec|k)_)[A-Za-z0-9+/=_-]+/g, "$1"],
];

/**
 * Redacts one set of secrets from any number of strings. Build it once per error: the secrets are
 * compiled into one pattern, and the returned function keeps them only in its closure (never on an
 * object that a logger or `util.inspect` would print).
 */
export type Redactor = (text: string) => string;

/** The forms a secret may be echoed in: as is, percent-encoded, JSON-escaped, a `whsec_` key without its prefix. */
function formsOf(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  const bare = /^wh(?:sec|sk)_(.{6,})$/.exec(secret)?.[1];
  if (bare) forms.push(bare);
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** How a redactor works. */
export interface RedactorOptions {
  /**
   * Whether credentials recognisable by label (`Bearer …`, `token=…`, `sig=…`, `whsec_…`) go too.
   * Default true; false removes only the configured secrets, for output that must stay usable as is
   * (a result whose `statusUrl` is needed with its signature).
   */
  patterns?: boolean;
}

/**
 * Makes the redactor for `secrets`. Every configured secret is replaced wherever it occurs, whatever
 * its length: a one-character key turns that character into the marker everywhere (text is mangled
 * rather than a secret shown; real keys are long, so in practice only the key itself goes).
 */
export function redactorFor(secrets: Iterable<string> = [], options: RedactorOptions = {}): Redactor {
  const given = [...secrets].filter((s): s is string => typeof s === "string" && s.length > 0);
  const forms = [...new Set(given.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  const marker = MARKERS.find((m) => !forms.some((form) => m.includes(form))) ?? "";
  const configured = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join("|"), "g") : undefined;
  return (text) => {
    let out = text;
    // No marker holds a `$`, so each replacement reads `$1` (the label) and nothing else as special.
    for (const [pattern, replacement] of options.patterns === false ? [] : PATTERNS) {
      out = out.replace(pattern, replacement + marker);
    }
    if (!configured) return out;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const next = out.replace(configured, () => marker);
      if (next === out) return out;
      out = next;
    }
    configured.lastIndex = 0;
    return configured.test(out) ? marker : out;
  };
}

/**
 * Removes credentials from text before it goes into an error: bearer tokens, header, query and JSON
 * values named like credentials (`sig`, `signature`, `token`, `X-Amz-Signature`, …), `whsec_`
 * secrets, and every one of `secrets` (the configured API key, session token or webhook secret, which
 * may be echoed without a recognisable label), of any length, also percent-encoded or JSON-escaped.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  return redactorFor(secrets)(text);
}

// Deeper than any real `details` entry; beyond it a value is replaced, not walked (no stack overflow).
const MAX_DEPTH = 32;

/**
 * A copy of `value` with every string in it redacted, object keys included; numbers, booleans and the
 * shape are kept. Used for `details`, whose entries are whatever the service sent.
 */
export function redactValue<T>(value: T, redact: Redactor): T {
  // Each object is copied once: a shared or cyclic reference gets the same copy, never a new walk.
  const copies = new Map<object, unknown>();
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === "string") return redact(item);
    if (typeof item !== "object" || item === null) return item;
    if (depth > MAX_DEPTH) return redact(REDACTED);
    if (copies.has(item)) return copies.get(item);
    const copy: Record<string, unknown> | unknown[] = Array.isArray(item) ? [] : {};
    copies.set(item, copy);
    for (const [key, entry] of Object.entries(item)) {
      // defineProperty, not assignment: a key such as `__proto__` stays an ordinary field.
      Object.defineProperty(copy, Array.isArray(copy) ? key : redact(key), {
        value: walk(entry, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return walk(value, 0) as T;
}

/** A short, single-line, redacted excerpt of a body for an error message (never the whole body). */
export function excerpt(text: string, secrets: Iterable<string> = [], max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  // Redacted before it is cut, so a secret that straddles the cut is not left half visible.
  const clean = redactSecrets(flat, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
