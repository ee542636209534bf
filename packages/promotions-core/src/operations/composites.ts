/**
 * The operations made of declared steps, which no single request states: each one's name, as the
 * client's `telemetry` publishes it, and the declarations of the steps it runs, in order, each as a
 * child operation under it. Not in `index.ts` with the one-request declarations: a description of the
 * service (OpenAPI) lists requests, and these are none.
 */
import type { CompositeOperation, RunnableDeclaration } from "@promo-review/http";
import { getDecision, getPromotion, submitVersion } from "./promotions.js";
import { listChannels, listJurisdictions, listProducts, listTargetMarkets } from "./reference.js";

/** An operation of several declared requests (http's `CompositeOperation`), each step a whole declaration. */
export type CompositeDeclaration<
  Steps extends readonly RunnableDeclaration[] = readonly RunnableDeclaration[],
> = CompositeOperation<Steps>;

/** Reads the promotion's latest version, then submits it. */
export const submitLatestVersion = {
  name: "promotions.submitLatest",
  steps: [getPromotion, submitVersion],
} as const satisfies CompositeDeclaration;

/** Reads the promotion's latest version, then its decision. */
export const decisionOfLatestVersion = {
  name: "promotions.decisionOfLatest",
  steps: [getPromotion, getDecision],
} as const satisfies CompositeDeclaration;

/** Fetches the reference lists anew (those asked for, of these four: channels, jurisdictions, products, target markets). */
export const refreshReference = {
  name: "reference.refresh",
  steps: [listChannels, listJurisdictions, listProducts, listTargetMarkets],
} as const satisfies CompositeDeclaration;
