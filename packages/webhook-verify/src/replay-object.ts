import { PromoReviewState, type StateCommand } from "@promo-review/store/cloudflare";

/**
 * What the replay Durable Object is asked.
 * @deprecated use `StateCommand` from `@promo-review/store/cloudflare`.
 */
export type ReplayCommand = StateCommand;

/**
 * The replay store's Durable Object under its old name: `PromoReviewState` from
 * `@promo-review/store/cloudflare` (or `@promo-review/sdk/cloudflare`), the one class that serves the
 * webhook claims, the budget and the upload resume points.
 * @deprecated export `PromoReviewState` instead and bind it once; move with a `renamed_classes`
 * migration (see the sdk README, "Which store for which runtime").
 */
export class ReplayStoreObject extends PromoReviewState {}
