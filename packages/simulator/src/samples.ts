import type { ReferenceData } from "./reference.js";

/** A creation body of format text, as {@link sampleTextPromotion} builds it, plus any overrides. */
export type SampleTextPromotion = {
  promotionName: string;
  productIds: string[];
  channelIds: string[];
  jurisdictionId: string;
  fileFormat: "text";
  content: string;
} & Record<string, unknown>;

/**
 * A valid text promotion built from a simulator's seeded reference data: the smallest body the
 * simulator accepts, so a test (ours, or a user's own integration test) can create a promotion
 * without restating which fields are required. `overrides` replace or add fields.
 */
export function sampleTextPromotion(
  reference: ReferenceData,
  overrides: Record<string, unknown> = {},
): SampleTextPromotion {
  return {
    promotionName: "Spring savings",
    productIds: [reference.products[0]!.id],
    channelIds: [reference.channels[0]!.id],
    jurisdictionId: reference.jurisdictions[0]!.id,
    fileFormat: "text",
    content: "<p>Save 5% this spring. Capital at risk.</p>",
    ...overrides,
  };
}
