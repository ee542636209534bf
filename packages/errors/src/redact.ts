const PATTERNS: [RegExp, string][] = [
  // Authorization values: "Bearer <token>", "Basic <credentials>"
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, "$1 [REDACTED]"],
  // an Authorization header line with a bare credential
  [/\b(authorization\s*:\s*)(?!Bearer|Basic|\[REDACTED\])[^\s,;]+/gi, "$1[REDACTED]"],
  // query strings and forms: api_key=..., token=...
  [
    /\b((?:api[_-]?key|access[_-]?token|session[_-]?token|token|secret|password)=)[^\s&"']+/gi,
    "$1[REDACTED]",
  ],
  // JSON fields naming a credential: "apiKey":"..."
  [
    /("(?:api[_-]?key|access[_-]?token|session[_-]?token|token|secret|password|authorization)"\s*:\s*")(?!\[REDACTED\])[^"]*/gi,
    "$1[REDACTED]",
  ],
  // Standard Webhooks secrets
  [/whsec_[A-Za-z0-9+/=_-]+/g, "whsec_[REDACTED]"],
];

/**
 * Removes credentials from text before it goes into an error: bearer tokens, header or query values
 * named like credentials, `whsec_` secrets, and any `secrets` given (the configured API key, for
 * example, which may be echoed in a body without a recognisable label).
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of secrets) {
    // Short values would redact ordinary words; a real credential is never this short.
    if (secret && secret.length >= 6) out = out.split(secret).join("[REDACTED]");
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A short, single-line, redacted excerpt of a body for an error message (never the whole body). */
export function excerpt(text: string, secrets: Iterable<string> = [], max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > max ? `${flat.slice(0, max)}…` : flat;
  return redactSecrets(cut, secrets);
}
