/**
 * The main API's reference reads, each declared once. The spec gives `/v1/channels` and
 * `/v1/jurisdictions`; the products and target-markets paths are docs/gaps.md's defaults (a client's
 * `referenceCache.paths` may replace them). Every read spends the shared budget, so the client caches them.
 */
import type { OperationDeclaration } from "@promo-review/http";
import {
  channelListResponseSchema,
  jurisdictionListResponseSchema,
  productListResponseSchema,
  targetMarketListResponseSchema,
} from "../schemas/responses.js";

/** Lists the channels a promotion may run on. */
export const listChannels = {
  name: "reference.channels",
  method: "GET",
  path: "/v1/channels",
  response: channelListResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Lists the jurisdictions. */
export const listJurisdictions = {
  name: "reference.jurisdictions",
  method: "GET",
  path: "/v1/jurisdictions",
  response: jurisdictionListResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Lists the products (path not shown in the spec: docs/gaps.md row 15). */
export const listProducts = {
  name: "reference.products",
  method: "GET",
  path: "/v1/products",
  response: productListResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;

/** Lists the target markets (path not shown in the spec: docs/gaps.md row 15). */
export const listTargetMarkets = {
  name: "reference.targetMarkets",
  method: "GET",
  path: "/v1/target-markets",
  response: targetMarketListResponseSchema,
  statuses: [200],
  resend: "safe",
  budget: "shared",
} as const satisfies OperationDeclaration;
