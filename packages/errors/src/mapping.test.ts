import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  KNOWN_CODES,
  NotFoundError,
  ParentNotFoundError,
  PayloadTooLargeError,
  PermissionError,
  PromoReviewError,
  RateLimitError,
  ServerError,
  UploadNotReadyError,
  ValidationError,
} from "./index.js";
import { errorFromHttp, errorFromResponse } from "./internal.js";

const CID = "0b7c4f2e-9a53-4d1c-8f3e-2a6b1c9d0e11";

function envelope(code: string, details?: unknown[], message = "Something is wrong") {
  return JSON.stringify({ error: { code, message, ...(details ? { details } : {}) }, correlationId: CID });
}

function answer(status: number, body: string, headers: Record<string, string> = {}) {
  return { status, body, headers: new Headers(headers) };
}

describe("every documented code maps to a typed error that keeps the code", () => {
  const expected: Record<string, [number, new (...args: never[]) => PromoReviewError]> = {
    VALIDATION_ERROR: [400, ValidationError],
    INVALID_REQUEST: [400, ValidationError],
    UNAUTHORIZED: [401, AuthenticationError],
    FORBIDDEN: [403, PermissionError],
    NOT_FOUND: [404, NotFoundError],
    CONFLICT: [409, ConflictError],
    PAYLOAD_TOO_LARGE: [413, PayloadTooLargeError],
    RATE_LIMITED: [429, RateLimitError],
    INTERNAL_ERROR: [500, ServerError],
    UPSTREAM_ERROR: [502, ServerError],
    SERVICE_ERROR: [502, ServerError],
    PARENT_NOT_FOUND: [404, ParentNotFoundError],
  };
  it("covers the whole list of known codes", () => {
    expect(Object.keys(expected).sort()).toEqual([...KNOWN_CODES].sort());
  });
  for (const [code, [status, Class]] of Object.entries(expected)) {
    it(`${code} -> ${Class.name}`, () => {
      const error = errorFromHttp(answer(status, envelope(code)));
      expect(error).toBeInstanceOf(Class);
      expect(error).toBeInstanceOf(PromoReviewError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.status).toBe(status);
      expect(error.correlationId).toBe(CID);
    });
  }
  it("an unknown code still gives a typed error keeping the raw code, classed by status", () => {
    const error = errorFromHttp(answer(418, envelope("TEAPOT_OVERHEATED")));
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error.code).toBe("TEAPOT_OVERHEATED");
    expect(error.status).toBe(418);
    expect(errorFromHttp(answer(503, envelope("BRAND_NEW")))).toBeInstanceOf(ServerError);
  });
  it("a code named like an Object.prototype member is an unknown code, never a lookup into the prototype", () => {
    for (const code of Object.getOwnPropertyNames(Object.prototype)) {
      const error = errorFromHttp(answer(409, envelope(code)));
      expect(error, code).toBeInstanceOf(ConflictError);
      expect(error.code).toBe(code);
      expect(errorFromHttp(answer(502, envelope(code))), code).toBeInstanceOf(ServerError);
    }
  });
});

describe("retryable says whether the same request may succeed later", () => {
  it.each([
    ["RATE_LIMITED", 429, true],
    ["INTERNAL_ERROR", 500, true],
    ["UPSTREAM_ERROR", 502, true],
    ["SERVICE_ERROR", 502, true],
    ["PARENT_NOT_FOUND", 404, true],
    ["VALIDATION_ERROR", 400, false],
    ["UNAUTHORIZED", 401, false],
    ["NOT_FOUND", 404, false],
    ["CONFLICT", 409, false],
  ])("%s is retryable: %s", (code, status, retryable) => {
    expect(errorFromHttp(answer(status as number, envelope(code as string))).retryable).toBe(retryable);
  });
});

describe("409 with upload_not_ready details is an UploadNotReadyError naming the uploads", () => {
  it("lists the upload ids and is retryable", () => {
    const ids = ["5d1e9c3a-0b1f-4f53-9e2a-6c7d8e9f0a1b", "6e2f0d4b-1c2a-4a64-8f3b-7d8e9f0a1b2c"];
    const error = errorFromHttp(
      answer(
        409,
        envelope(
          "CONFLICT",
          ids.map((uploadId) => ({ type: "upload_not_ready", uploadId })),
        ),
      ),
    );
    expect(error).toBeInstanceOf(UploadNotReadyError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.notReadyUploadIds).toEqual(ids);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(ids[0]);
  });
});

describe("details are a union discriminated by type, with typed accessors", () => {
  it("types the four documented kinds and keeps unknown entries as sent", () => {
    const details = [
      { type: "field_error", field: "variations.2.details", message: "at most 1500 characters" },
      { type: "constraint_violation", constraint: "max_file_size", limit: 31457280, actual: 40000000 },
      { type: "retry_info", retryAfterSeconds: 2 },
      { type: "upload_not_ready", uploadId: "5d1e9c3a-0b1f-4f53-9e2a-6c7d8e9f0a1b" },
      { type: "quota_info", remaining: 0 },
      { type: "field_error", field: 42 },
      "just a string",
    ];
    const error = errorFromHttp(answer(400, envelope("VALIDATION_ERROR", details)));
    expect(error.details).toHaveLength(7);
    expect(error.fieldErrors).toEqual([details[0]]);
    expect(error.constraintViolations).toEqual([details[1]]);
    expect(error.details[4]).toEqual({ type: "quota_info", remaining: 0 });
    expect(error.details[5]).toEqual({ type: "field_error", field: 42 });
    expect(error.details[6]).toEqual({ type: "unknown", value: "just a string" });
  });

  it("keeps every key of an entry, those named like Object.prototype members included", () => {
    const body = envelope("VALIDATION_ERROR", [
      { type: "field_error", field: "name", message: "is required", hint: "x" },
    ]).replace('"hint"', '"constructor":"kept","__proto__":"kept too","hint"');
    const [detail] = errorFromHttp(answer(400, body)).details;
    expect(Object.hasOwn(detail!, "constructor")).toBe(true);
    expect(Object.hasOwn(detail!, "__proto__")).toBe(true);
    expect(detail).toMatchObject({ type: "field_error", field: "name", hint: "x" });
  });
});

describe("a response that is not the envelope still gives a typed error", () => {
  it("a proxy's HTML 502 gives a ServerError with the status, an excerpt and the header correlation id", () => {
    const html = `<html><head><title>502 Bad Gateway</title></head><body>${"x".repeat(5000)}</body></html>`;
    const error = errorFromHttp(answer(502, html, { "content-type": "text/html", "x-correlation-id": CID }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBe("UNEXPECTED_RESPONSE");
    expect(error.status).toBe(502);
    expect(error.correlationId).toBe(CID);
    expect(error.bodyExcerpt).toMatch(/^<html><head><title>502 Bad Gateway/);
    expect(error.bodyExcerpt!.length).toBeLessThanOrEqual(201);
    expect(error.retryable).toBe(true);
  });
  it.each([
    ["an empty body", ""],
    ["invalid JSON", "{ not json"],
    ["JSON that is not the envelope", JSON.stringify({ message: "nope" })],
    ["a JSON array", "[1,2]"],
  ])("%s", (_label, body) => {
    const error = errorFromHttp(answer(400, body, { "x-correlation-id": CID }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe("UNEXPECTED_RESPONSE");
    expect(error.correlationId).toBe(CID);
    expect(error.message).toContain("HTTP 400");
  });
  it("the envelope under a wrong content type is still read", () => {
    const error = errorFromHttp(answer(404, envelope("NOT_FOUND"), { "content-type": "text/plain" }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe("NOT_FOUND");
  });
  it("the body's correlation id wins over the header's", () => {
    const error = errorFromHttp(answer(404, envelope("NOT_FOUND"), { "x-correlation-id": "other" }));
    expect(error.correlationId).toBe(CID);
  });
  it("errorFromResponse reads a Fetch Response, cutting a huge body short", async () => {
    const huge = new Response(`<html>${"y".repeat(1_000_000)}</html>`, { status: 502 });
    const error = await errorFromResponse(huge);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.bodyExcerpt).toMatch(/^<html>y+/);
    const empty = await errorFromResponse(
      new Response(null, { status: 500, headers: { "x-correlation-id": CID } }),
    );
    expect(empty.correlationId).toBe(CID);
  });
  it("a body that breaks while being read still gives a typed error", async () => {
    const broken = new ReadableStream({
      pull(controller) {
        controller.error(new TypeError("terminated"));
      },
    });
    const error = await errorFromResponse(new Response(broken, { status: 503 }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.status).toBe(503);
  });
});

describe("no input makes error mapping throw anything but a typed error", () => {
  it("holds for arbitrary bodies, JSON values and statuses", () => {
    const bodies = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything().map((value) => JSON.stringify({ error: value, correlationId: value })),
      fc
        .record({
          code: fc.oneof(fc.string(), fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype))),
          message: fc.anything(),
          details: fc.anything(),
        })
        .map((error) => JSON.stringify({ error })),
      fc.array(fc.anything()).map((details) => JSON.stringify({ error: { code: "X", details } })),
    );
    const headers = fc.dictionary(
      fc.constantFrom("retry-after", "x-correlation-id", "content-type"),
      fc.string().map((s) => s.replace(/[^\x20-\x7e]/g, "")),
    );
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), bodies, headers, (status, body, h) => {
        const error = errorFromHttp({ status, body: body ?? "", headers: new Headers(h) });
        expect(error).toBeInstanceOf(PromoReviewError);
        expect(typeof error.message).toBe("string");
        expect(Array.isArray(error.details)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
