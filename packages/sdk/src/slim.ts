/**
 * The slim path, for a bundle that runs a few main-API operations rather than the whole client:
 * `createPromotionsCore` and one standalone function per operation (`promotionsCreate(core, body)`),
 * re-exported from `@promo-review/promotions-core/slim` so that a facade user needs no second package.
 * A bundle holds the functions it imports and no other (measured: the same bytes as importing them
 * from promotions-core).
 * @packageDocumentation
 */
export * from "@promo-review/promotions-core/slim";
