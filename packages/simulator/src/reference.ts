/**
 * Seeded reference data: channels, jurisdictions, products and target markets. Ids are generated from
 * the seed so that promotions in tests and examples can use real ids, and unknown ids can be rejected.
 */
import type { Random } from "./random.js";

/** A channel, as listed by `GET /v1/channels`. */
export interface Channel {
  id: string;
  name: string;
}
/** A jurisdiction, as listed by `GET /v1/jurisdictions`. */
export interface Jurisdiction {
  id: string;
  name: string;
  countryCode: string;
}
/** A product, as listed by `GET /v1/products` (shape chosen by the simulator: id and name). */
export interface Product {
  id: string;
  name: string;
}
/** A target market, as listed by `GET /v1/target-markets` (shape chosen by the simulator: id and name). */
export interface TargetMarket {
  id: string;
  name: string;
}

/** All reference data of one simulator instance. */
export interface ReferenceData {
  channels: Channel[];
  jurisdictions: Jurisdiction[];
  products: Product[];
  targetMarkets: TargetMarket[];
}

const CHANNELS = ["Instagram", "TikTok", "Email", "Website", "Print", "YouTube"];
const JURISDICTIONS: [string, string][] = [
  ["United Kingdom", "GB"],
  ["Ireland", "IE"],
  ["Germany", "DE"],
  ["United States", "US"],
  ["Australia", "AU"],
];
const PRODUCTS = ["Current Account", "Credit Card", "Mortgage", "Stocks and Shares ISA", "Personal Loan"];
const TARGET_MARKETS = ["Retail", "High Net Worth", "Professional", "Students"];

/** Generates the reference data from the seeded generator. */
export function createReferenceData(random: Random): ReferenceData {
  return {
    channels: CHANNELS.map((name) => ({ id: random.uuid(), name })),
    jurisdictions: JURISDICTIONS.map(([name, countryCode]) => ({ id: random.uuid(), name, countryCode })),
    products: PRODUCTS.map((name) => ({ id: random.uuid(), name })),
    targetMarkets: TARGET_MARKETS.map((name) => ({ id: random.uuid(), name })),
  };
}
