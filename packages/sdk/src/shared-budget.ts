import type { Observer } from "@promo-review/errors/observe";
import {
  createRateBudget,
  keyIdOf,
  type RateBudget,
  type RateBudgetOptions,
} from "@promo-review/rate-budget";

/** How the client's rate budget is chosen. */
export type BudgetChoice = RateBudget | false | Omit<RateBudgetOptions, "baseUrl"> | undefined;

const REGISTRY = Symbol.for("@promo-review/sdk.shared-budgets");

/**
 * The budget a client uses. By default one budget per API key and main-API origin is shared by every
 * client in the process (the service counts per key, so two clients with the same key must not each
 * spend 60 a minute). It lives on `globalThis` under a registered symbol, created on first use, so two
 * copies of the SDK share it too. A budget passed in is used as it is; options make a private budget
 * (for a Redis store, say, which is shared through Redis); `false` turns budgeting off. A budget made
 * here gets the client's `telemetry` observer (the shared one, that of the first client to make it).
 */
export function chooseBudget(
  choice: BudgetChoice,
  apiKey: string,
  baseUrl: string,
  telemetry?: Observer,
): RateBudget | undefined {
  if (choice === false) return undefined;
  const keyId = keyIdOf(apiKey);
  if (choice && "acquire" in choice) return choice;
  // The client's observer, unless the budget's own options name theirs.
  if (choice) return createRateBudget({ telemetry, ...choice, baseUrl, keyId: choice.keyId ?? keyId });
  const holder = globalThis as { [REGISTRY]?: Map<string, RateBudget> };
  holder[REGISTRY] ??= new Map();
  const id = `${keyId} ${new URL(baseUrl).origin}`;
  let budget = holder[REGISTRY].get(id);
  if (!budget) {
    // Shared by every client of the key: it reports to the observer of the client that made it.
    budget = createRateBudget({ telemetry, baseUrl, keyId });
    holder[REGISTRY].set(id, budget);
  }
  return budget;
}
