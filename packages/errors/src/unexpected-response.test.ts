import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "../../../testing/fast-check-seed.ts";
import { PromoReviewError } from "./promo-review-error.js";
import {
  breachOf,
  checkResponse,
  describeValue,
  expectObject,
  isUuid,
  UnexpectedResponseError,
  unexpectedResponse,
} from "./unexpected-response.js";

const context = { operation: "uploads.initiate", correlationId: "c-1", status: 201 };
const UUID = "7d444840-9dc0-11d1-b245-5ffdce74fad2";

describe("UNEXPECTED_RESPONSE names the field, the operation and the correlation id", () => {
  it("is a typed, non-retryable error with a field_error detail", () => {
    const error = unexpectedResponse({ ...context, field: "uploadId", problem: "must be a UUID string" });
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error).toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      status: 201,
      correlationId: "c-1",
      operation: "uploads.initiate",
      field: "uploadId",
      retryable: false,
      fieldErrors: [{ field: "uploadId", message: "must be a UUID string" }],
    });
    expect(error.message).toMatch(/uploads\.initiate.*uploadId must be a UUID string.*c-1/);
    expect(error.toJSON()).toMatchObject({ operation: "uploads.initiate", field: "uploadId" });
  });

  it("redacts a secret the service echoed into a checked field", () => {
    const error = checkResponse.bind(
      null,
      { uploadId: "sk_live_abc" },
      { uploadId: "uuid" },
      {
        ...context,
        secrets: ["sk_live_abc"],
      },
    );
    expect(error).toThrow(UnexpectedResponseError);
    try {
      error();
    } catch (thrown) {
      expect((thrown as Error).message).not.toContain("sk_live_abc");
    }
  });
});

describe("a body that is not a JSON object is never a success", () => {
  it.each([undefined, null, "hello", 3, true, [1]])("refuses %j naming (body)", (body) => {
    expect(() => expectObject(body, context)).toThrow(expect.objectContaining({ field: "(body)" }));
  });
  it("describes values briefly", () => {
    expect([undefined, null, [], "x".repeat(41), {}, 2].map(describeValue)).toEqual([
      "nothing",
      "null",
      "an array",
      "a long string",
      "a value of type object",
      "2",
    ]);
  });
});

describe("each rule: required fields, types, uuids, closed enums; optional fields only when present", () => {
  const shape = {
    uploadId: "uuid",
    uploadUrl: "nonEmptyString",
    maxChunkSize: "positiveInteger",
    fileSize: { rule: "nonNegativeInteger", optional: true },
    version: { rule: "integer", optional: true },
    paid: { rule: "boolean", optional: true },
    name: { rule: "string", optional: true },
    status: { rule: { oneOf: ["pending", "completed"] }, optional: true },
  } as const;
  const valid = { uploadId: UUID, uploadUrl: "/v1/uploads/x", maxChunkSize: 1 };

  it("keeps a valid body as sent, unknown fields included", () => {
    const body = { ...valid, extra: { kept: true }, fileSize: 0, status: "pending" };
    expect(checkResponse(body, shape, context)).toBe(body);
  });

  it.each([
    [{ ...valid, uploadId: undefined }, "uploadId", /is required/],
    [{ ...valid, uploadUrl: "" }, "uploadUrl", /non-empty/],
    [{ ...valid, maxChunkSize: 0 }, "maxChunkSize", /> 0/],
    [{ ...valid, fileSize: -1 }, "fileSize", />= 0/],
    [{ ...valid, version: 1.5 }, "version", /integer/],
    [{ ...valid, paid: "yes" }, "paid", /boolean/],
    [{ ...valid, name: 1 }, "name", /string/],
    [{ ...valid, status: "done" }, "status", /one of pending, completed/],
  ])("refuses %j on %s", (body, field, problem) => {
    expect(() => checkResponse(body, shape, context)).toThrow(
      expect.objectContaining({ field, message: expect.stringMatching(problem) }),
    );
  });

  it("never passes a value that breaks a uuid rule, whatever JSON the service sends (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(breachOf(value, "uuid") === undefined).toBe(isUuid(value));
        if (breachOf(value, "positiveInteger") === undefined) {
          expect(Number.isSafeInteger(value) && (value as number) > 0).toBe(true);
        }
      }),
    );
    fc.assert(fc.property(fc.uuid(), (id) => isUuid(id)));
  });
});
