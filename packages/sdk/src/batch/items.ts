/**
 * What one line of a batch manifest is: a promotion's creation fields plus the batch's own fields
 * (`key`, `files`, `link`, `submit`, `evaluate`), and the metadata keys the runner adds to every
 * promotion it creates, so a person can find a batch's promotions in the web app.
 */
import type { CreatePromotionRequest } from "@promo-review/promotions-core";
import { MAX_METADATA_KEYS } from "@promo-review/promotions-core";

/** The metadata key that carries the item's `key` on every promotion a batch creates. */
export const ITEM_KEY_METADATA = "promoReviewItemKey";

/** The metadata key that carries the batch's id on every promotion a batch creates. */
export const BATCH_ID_METADATA = "promoReviewBatchId";

/** Metadata keys a manifest line may use: the service's 20 less the two the runner adds. */
export const MAX_ITEM_METADATA_KEYS: number = MAX_METADATA_KEYS - 2;

/** The fields of a manifest line that are the batch's, not the creation request's. */
export const BATCH_FIELDS = ["key", "files", "link", "submit", "evaluate"] as const;

/**
 * One promotion of a batch. The creation fields are sent as `promotions.create` takes them (fields
 * the spec leaves open pass through); `uploadIds` come from `files` or `link`, never from the line.
 */
export interface BatchItem extends CreatePromotionRequest {
  /** Never given: the runner sets it from `files` or `link`. */
  uploadIds?: never;
  /** The item's identity in the batch: unique in the manifest, kept in the journal and the metadata. */
  key: string;
  /**
   * Files to upload, in order; their upload ids become the promotion's `uploadIds`. In a manifest
   * read from a file (`@promo-review/sdk/node`), paths absolute or relative to the manifest.
   */
  files?: string[];
  /** A URL to capture; the capture's upload id and `fileFormat` make the promotion's content. */
  link?: string;
  /** Submit the first version once created. */
  submit?: boolean;
  /** Start an evaluation of the first version once created (and submitted, when `submit`). */
  evaluate?: boolean;
}
