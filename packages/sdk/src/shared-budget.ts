import { createRateBudget, type RateBudget, type RateBudgetOptions } from "@promo-review/rate-budget";

/** How the client's rate budget is chosen. */
export type BudgetChoice = RateBudget | false | Omit<RateBudgetOptions, "baseUrl"> | undefined;

const REGISTRY = Symbol.for("@promo-review/sdk.shared-budgets");

/**
 * A short, stable id for an API key, so budgets (and Redis keys) can be named per key without the key
 * itself ever being stored or sent anywhere. Two FNV-1a passes give 64 bits: plenty to tell keys apart,
 * far too little to recover one.
 */
export function keyIdOf(apiKey: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ apiKey.length;
  for (let i = 0; i < apiKey.length; i++) {
    const c = apiKey.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return `k${a.toString(16).padStart(8, "0")}${b.toString(16).padStart(8, "0")}`;
}

/**
 * The budget a client uses. By default one budget per API key and main-API origin is shared by every
 * client in the process (the service counts per key, so two clients with the same key must not each
 * spend 60 a minute). It lives on `globalThis` under a registered symbol, created on first use, so two
 * copies of the SDK share it too. A budget passed in is used as it is; options make a private budget
 * (for a Redis store, say, which is shared through Redis); `false` turns budgeting off.
 */
export function chooseBudget(choice: BudgetChoice, apiKey: string, baseUrl: string): RateBudget | undefined {
  if (choice === false) return undefined;
  const keyId = keyIdOf(apiKey);
  if (choice && "acquire" in choice) return choice;
  if (choice) return createRateBudget({ ...choice, baseUrl, keyId: choice.keyId ?? keyId });
  const holder = globalThis as { [REGISTRY]?: Map<string, RateBudget> };
  holder[REGISTRY] ??= new Map();
  const id = `${keyId} ${new URL(baseUrl).origin}`;
  let budget = holder[REGISTRY].get(id);
  if (!budget) {
    budget = createRateBudget({ baseUrl, keyId });
    holder[REGISTRY].set(id, budget);
  }
  return budget;
}
