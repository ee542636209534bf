/**
 * Valid request bodies for tests (test-only: excluded from the build). Ids are fixed UUIDs; tests
 * that reach the simulator swap in its seeded reference ids.
 */
import { ValidationError } from "@promo-review/errors";
import { expect } from "vitest";
import type { CreatePromotionRequest, NewVersionRequest } from "../../src/types.js";

/** Fixed uuids standing in for reference-data ids. */
export const IDS = {
  product: "0b7e7c4e-6a1f-4d2b-9a57-3c1d2e4f5a6b",
  channel: "1c8f8d5f-7b2a-4e3c-8b68-4d2e3f5a6b7c",
  jurisdiction: "2d9a9e6a-8c3b-4f4d-9c79-5e3f4a6b7c8d",
  upload: "3eab0f7b-9d4c-4a5e-8d8a-6f4a5b7c8d9e",
  upload2: "4fbc1a8c-ae5d-4b6f-9e9b-7a5b6c8d9eaf",
};

/** A valid text-format creation body. */
export function textBody(overrides: Record<string, unknown> = {}): CreatePromotionRequest {
  return {
    promotionName: "Spring savings",
    productIds: [IDS.product],
    channelIds: [IDS.channel],
    jurisdictionId: IDS.jurisdiction,
    fileFormat: "text",
    content: "<p>Save 5% this spring. Capital at risk.</p>",
    ...overrides,
  };
}

/** A valid variations creation body with `n` entries. */
export function variationsBody(n: number, overrides: Record<string, unknown> = {}): CreatePromotionRequest {
  const { fileFormat: _f, content: _c, ...rest } = textBody();
  return {
    ...rest,
    variations: Array.from({ length: n }, (_, i) => ({ content: `Variation ${i + 1}` })),
    ...overrides,
  };
}

/** A valid file-based new-version body. */
export function fileVersionBody(overrides: Record<string, unknown> = {}): NewVersionRequest {
  return { fileFormat: "pdf", uploadIds: [IDS.upload], ...overrides };
}

/** The field errors of a local refusal, as `field: message` pairs, or a failure when it was accepted. */
export function refusal(run: () => unknown): { field: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).local).toBe(true);
    return (error as ValidationError).fieldErrors.map(({ field, message }) => ({ field, message }));
  }
  throw new Error("expected the request to be refused");
}

/** The local `ValidationError` a call throws, or a failure when it was accepted. */
export function caught(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error("expected the request to be refused");
}
