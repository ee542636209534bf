import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reachableStrings, renderingsOf, whereShown } from "../../../testing/renderings.ts";
import { isVocabularyCode } from "./codes.js";
import { PromoReviewError, REDACTED, redactSecrets, ServerError, WebhookVerificationError } from "./index.js";
import { errorFromHttp, errorFromTransport, excerpt, redactorFor, redactValue } from "./internal.js";

/**
 * The strings an error carries that came from outside the SDK (the service's answer, the request, a
 * cause): everything but the class name, a documented code, the HTTP method and the stack's frames.
 */
function carriedStrings(error: unknown, depth = 0): string[] {
  if (typeof error === "string") return [error];
  if (!(error instanceof Error) || depth > 6) return [];
  const out = [error.message];
  if (error instanceof PromoReviewError) {
    if (!isVocabularyCode(error.code)) out.push(error.code);
    out.push(...[error.correlationId, error.bodyExcerpt, error.request?.url].filter((s) => s !== undefined));
    out.push(...reachableStrings(error.details));
    if (error instanceof WebhookVerificationError && error.webhookId) out.push(error.webhookId);
  } else {
    out.push(error.name, ...reachableStrings((error as { code?: unknown }).code));
  }
  return [...out, ...carriedStrings(error.cause, depth + 1)];
}

/** Errors made every way the SDK makes them, each echoing `echo` in every string it is built from. */
function echoingErrors(echo: string, secret: string, options: { header?: boolean } = {}): PromoReviewError[] {
  const secrets = [secret];
  const url = `http://127.0.0.1:9/v1/links/imports/${encodeURIComponent(echo)}?source=figma&q=${echo}`;
  const envelope = JSON.stringify({
    error: {
      code: "VALIDATION_ERROR",
      message: echo,
      details: [
        { type: "field_error", field: echo, message: `bad ${echo}` },
        { type: "constraint_violation", constraint: echo, limit: 1500, actual: 1501 },
        { type: "upload_not_ready", uploadId: echo },
        { type: echo, [echo]: { nested: [echo, { deeper: echo }] } },
        echo,
      ],
    },
    correlationId: echo,
  });
  const headers = options.header ? new Headers({ "x-correlation-id": echo }) : new Headers();
  const inner = new ServerError({
    code: echo,
    message: echo,
    correlationId: echo,
    details: [{ type: echo }],
  });
  const foreign = Object.assign(new TypeError(`fetch failed ${echo}`), {
    code: echo,
    cause: Object.assign(new Error(`connect ${echo}`), { name: echo, code: "ECONNRESET", cause: inner }),
  });
  return [
    errorFromHttp({ status: 400, body: envelope, headers }, { method: "POST", url, secrets }),
    errorFromHttp({ status: 502, body: `<html>${echo}</html>`, headers }, { method: "GET", url, secrets }),
    errorFromHttp(
      { status: 409, body: JSON.stringify({ error: { code: echo, message: echo } }), headers },
      { method: "GET", url, secrets },
    ),
    errorFromTransport(foreign, { method: "GET", url, secrets }),
    new PromoReviewError({ code: echo, message: echo, bodyExcerpt: echo, cause: inner, secrets }),
    new WebhookVerificationError({ reason: "bad_signature", message: echo, webhookId: echo, secrets }),
  ];
}

const anyText = fc.string({ maxLength: 12, unit: "binary" });
// Any characters, regular-expression and replacement metacharacters and astral ones included.
const anySecret = fc.oneof(
  fc.string({ minLength: 1, maxLength: 3, unit: "binary" }),
  fc.string({ minLength: 1, maxLength: 40, unit: "binary" }),
  fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom(..."\\^$.*+?()[]{}|/-$&$1$'") }),
);

describe("every configured secret, of any length, leaves every string an error carries", () => {
  it("message, details, body correlation id, URL, excerpt, code, webhook id and cause chain (property)", () => {
    fc.assert(
      fc.property(anySecret, anyText, anyText, (secret, before, after) => {
        for (const error of echoingErrors(`${before}${secret}${after}`, secret)) {
          const leaked = carriedStrings(error).filter((text) => text.includes(secret));
          if (leaked.length > 0) throw new Error(`${error.name} carries ${JSON.stringify(leaked)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the X-Correlation-ID header fallback too (property over header-safe secrets)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
        fc.stringMatching(/^[\x21-\x7e]{0,8}$/),
        (secret, noise) => {
          const echo = `${noise}${secret}`;
          const error = errorFromHttp(
            { status: 500, body: "", headers: new Headers({ "x-correlation-id": echo }) },
            { secrets: [secret] },
          );
          return error.correlationId !== undefined && !error.correlationId.includes(secret);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a 1 to 3 character key never appears, and the marker is chosen so it cannot show one", () => {
    for (const key of ["§", "Zq", "$1(", "R", "*", "]x"]) {
      for (const error of [
        ...echoingErrors(`id-${key}-${key}${key}`, key, { header: true }),
        ...echoingErrors(key, key),
      ]) {
        expect(carriedStrings(error).filter((text) => text.includes(key))).toEqual([]);
      }
    }
    expect(redactSecrets("a R b", ["R"])).toBe("a *** b");
    expect(redactSecrets("a R* b", ["R", "*"])).toBe("a  b");
    expect(redactSecrets("a [REDACTED] b", ["R", "r"])).not.toMatch(/[Rr]/);
  });

  it("a key longer than the vocabulary it hides in is shown in no rendering at all", () => {
    const key = "Zq";
    for (const error of echoingErrors(`x${key}y`, key, { header: true })) {
      expect(whereShown(error, key)).toEqual([]);
    }
  });

  it("an error shows a configured secret in no rendering: inspect, console.log, JSON, clone, logger (property)", () => {
    // Renderers escape quotes, backslashes and control characters, which can spell a secret out of
    // text that never held it; such secrets are covered by the carried-strings property above.
    const printable = fc.string({ maxLength: 12 });
    const secretChar = fc.constantFrom(
      ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~ §€жλ漢",
    );
    const secret = fc.oneof(
      fc.string({ minLength: 1, maxLength: 3, unit: secretChar }),
      fc.string({ minLength: 8, maxLength: 40, unit: secretChar }),
    );
    fc.assert(
      fc.property(secret, printable, printable, (key, before, after) => {
        // A secret that the SDK's own words, numbers or stack frames happen to contain is not a leak,
        // nor one that a renderer spells out of the text around it: an echoed error name ending in "k"
        // is printed "k: message", which shows a key "k:" the text never held (the case ["k:", "", "k"]).
        const vocabulary = [...echoingErrors("", key), ...echoingErrors(`${before}${after}`, key)].flatMap(
          (e) => Object.values(renderingsOf(e)),
        );
        fc.pre(!vocabulary.some((text) => text.includes(key)));
        for (const error of echoingErrors(`${before}${key}${after}`, key)) {
          const shown = whereShown(error, key);
          if (shown.length > 0) throw new Error(`${error.name} shows the key in ${shown.join(", ")}`);
        }
      }),
      // ["aaaaaaaa", "", "valueOf"]: an echoed code named like an Object.prototype member (it once threw).
      {
        numRuns: 150,
        examples: [
          ["k:", "", "k"],
          ["aaaaaaaa", "", "valueOf"],
        ],
      },
    );
  });
});

describe("signature-like query values are replaced in URLs", () => {
  it("sig, signature, token and X-Amz-/X-Goog-Signature, in any case; other parameters stay", () => {
    const url =
      "http://127.0.0.1:9/v1/links/imports/u?source=figma&sig=ab%2Bcd%2Fef&SIGNATURE=s1&Token=t1" +
      "&X-Amz-Signature=a1b2&x-goog-signature=g1&X-Amz-Credential=AKIA%2F2026&designFrameId=1:2#access_token=f1";
    const error = errorFromTransport(new Error("socket hang up"), { method: "GET", url });
    for (const value of ["ab%2Bcd%2Fef", "s1", "t1", "a1b2", "g1", "AKIA", "f1"]) {
      expect(error.request?.url).not.toContain(value);
      expect(error.message).not.toContain(value);
    }
    expect(error.request?.url).toContain("source=figma");
    expect(error.request?.url).toContain("designFrameId=1:2");
    expect(error.request?.url).toContain(`sig=${REDACTED}`);
    expect(redactSecrets("http://127.0.0.1:9/x?key=k1&a=1")).toBe(`http://127.0.0.1:9/x?key=${REDACTED}&a=1`);
    // In prose "key=value" is an example of a form, not a credential.
    expect(redactSecrets("--meta: must be key=value")).toBe("--meta: must be key=value");
  });

  it("a secret echoed percent-encoded or JSON-escaped is replaced too", () => {
    const key = 'k/+"y\\z';
    const text = `${encodeURIComponent(key)} ${JSON.stringify(key)} ${key}`;
    const out = redactSecrets(text, [key]);
    expect(out).not.toContain(encodeURIComponent(key));
    expect(out).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(out).not.toContain(key);
  });

  it("a whsec_ secret echoed without its prefix is replaced", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(redactSecrets("bytes MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", [secret])).toBe(`bytes ${REDACTED}`);
  });
});

describe("no property of an error holds a secret", () => {
  it("the secrets given are not kept on the instance, in any property, enumerable or not", () => {
    const key = "sk_live_NeverOnTheInstance42";
    const error = new ServerError({ code: "INTERNAL_ERROR", message: "failed", secrets: [key] });
    const reachable = reachableStrings(error);
    expect(reachable.some((text) => text.includes(key))).toBe(false);
    expect(Object.keys(error)).not.toContain("secrets");
  });

  it("a cause that is an error of this package keeps its class, with every string redacted", () => {
    const key = "sk_live_InnerCause0001";
    const inner = new ServerError({ code: "UPSTREAM_ERROR", message: key, correlationId: key });
    const outer = new PromoReviewError({
      code: "UPLOAD_FAILED",
      message: "outer",
      cause: inner,
      secrets: [key],
    });
    expect(outer.cause).toBeInstanceOf(ServerError);
    expect((outer.cause as ServerError).correlationId).toBe(REDACTED);
    expect((outer.cause as ServerError).code).toBe("UPSTREAM_ERROR");
    expect(whereShown(outer, key)).toEqual([]);
    // The original is not changed: it belongs to whoever made it.
    expect(inner.correlationId).toBe(key);
  });

  it("documented codes are kept for branching even when a tiny key is inside them", () => {
    const error = new ServerError({ code: "INTERNAL_ERROR", message: "boom", secrets: ["E"] });
    expect(error.code).toBe("INTERNAL_ERROR");
    expect(error.message).not.toContain("E");
  });

  it("details nested deeper than any real entry are cut, never a stack overflow", () => {
    const deep = `${'{"d":'.repeat(5000)}"sk_live_deep"${"}".repeat(5000)}`;
    const body = `{"error":{"code":"X","message":"m","details":[${deep}]},"correlationId":"c"}`;
    const error = errorFromHttp({ status: 400, body, headers: new Headers() }, { secrets: ["sk_live_deep"] });
    expect(JSON.stringify(error)).not.toContain("sk_live_deep");
  });
});

describe("the redactor", () => {
  it("replaces again when a replacement joins text into a new occurrence", () => {
    expect(redactSecrets("xx[", ["x["])).not.toContain("x[");
    expect(redactSecrets("aabb", ["ab"])).not.toContain("ab");
  });

  it("falls back to the marker alone when replacing never ends", () => {
    const redact = redactorFor(["ab", "R", "*"]);
    expect(redact("aaaa")).toBe("aaaa");
    // "" is the marker here; each pass joins a new "ab" until the limit, then the whole goes.
    expect(redact(`${"a".repeat(20)}${"b".repeat(20)}`)).toBe("");
  });

  it("ignores empty secrets and copies values without touching their shape", () => {
    expect(redactSecrets("text", ["", "x"])).toBe("te[REDACTED]t");
    const value = { n: 1, b: true, list: ["sk_a1", null], __proto__x: "sk_a1" };
    expect(redactValue(value, redactorFor(["sk_a1"]))).toEqual({
      n: 1,
      b: true,
      list: [REDACTED, null],
      __proto__x: REDACTED,
    });
  });

  it("can leave labelled values alone and remove only the configured secrets", () => {
    const redact = redactorFor(["sk_a1"], { patterns: false });
    expect(redact("sig=abc sk_a1 Bearer xyz")).toBe(`sig=abc ${REDACTED} Bearer xyz`);
  });

  it("cuts an excerpt after redacting, so a cut secret is never half shown", () => {
    const key = "sk_live_0123456789";
    expect(excerpt(`${"a".repeat(190)}${key}`, [key], 200)).not.toContain("sk_live_0");
  });
});

describe("details a caller builds", () => {
  it("a shared or cyclic reference is copied once, never walked again", () => {
    const shared: Record<string, unknown> = { token: "sk_cycle_1" };
    shared["self"] = shared;
    const error = new PromoReviewError({
      code: "X",
      message: "m",
      details: [{ type: "t", a: shared, b: shared }],
      secrets: ["sk_cycle_1"],
    });
    const [entry] = error.details as unknown as { a: Record<string, unknown>; b: unknown }[];
    expect(entry?.a).toBe(entry?.b);
    expect(entry?.a["self"]).toBe(entry?.a);
    expect(entry?.a["token"]).toBe(REDACTED);
    expect(Array.isArray(error.details)).toBe(true);
  });
});
