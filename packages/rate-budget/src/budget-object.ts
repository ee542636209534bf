import { PromoReviewState, type StateCommand } from "@promo-review/store/cloudflare";

/**
 * What the budget's Durable Object is asked.
 * @deprecated use `StateCommand` from `@promo-review/store/cloudflare`.
 */
export type BudgetCommand = StateCommand;

/**
 * The budget's Durable Object under its old name: `PromoReviewState` from
 * `@promo-review/store/cloudflare` (or `@promo-review/sdk/cloudflare`), the one class that serves the
 * budget, the webhook claims and the upload resume points.
 * @deprecated export `PromoReviewState` instead and bind it once; move with a `renamed_classes`
 * migration (see the sdk README, "Which store for which runtime").
 */
export class BudgetObject extends PromoReviewState {}
