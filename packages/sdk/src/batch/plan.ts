/**
 * A batch's plan, before anything is sent: the requests each budget will be charged (matched by the
 * rate budget's own rules, so the count is what the budget really spends) and the least time the
 * busiest budget needs for them. Uploads go to the file service, which no budget limits.
 */
import type { OperationDeclaration } from "@promo-review/http";
import { captureLink } from "@promo-review/link-capture/operations";
import { createPromotion, startEvaluation, submitVersion } from "@promo-review/promotions-core";
import { type BudgetRule, createRateBudget, defaultBudgets } from "@promo-review/rate-budget";
import { uploadInitiation } from "@promo-review/upload-chunker/operations";
import type { BatchTotals } from "./manifest.js";

/** One kind of request a batch sends, how many, and the budgets each one takes from. */
export interface PlannedRequest {
  /** The operation, as its declaration names it (`promotions.create`; a file's is `uploads.initiate`). */
  operation: string;
  method: string;
  /** The path template, as declared (the file service's for `uploads.initiate`). */
  path: string;
  count: number;
  /** The budgets one such request takes from (none for the file service). */
  budgets: string[];
}

/** What one budget will be charged, and the least time that takes at its limit. */
export interface BudgetPlan {
  name: string;
  limit: number;
  windowMs: number;
  requests: number;
  /** The least time from the first request to the last: `limit` go at once, then `limit` per window. */
  leastMs: number;
}

/** A batch's cost, counted before anything is sent. */
export interface BatchPlan {
  items: number;
  requests: PlannedRequest[];
  budgets: BudgetPlan[];
  /** The least time the batch takes: its busiest budget's. */
  leastMs: number;
  /** Requests that may come on top, which no manifest can count. */
  uncounted: string[];
}

/** Options of {@link planBatch}. */
export interface PlanOptions {
  /** The budgets to count against (default: the service's, `defaultBudgets()`). */
  budgets?: readonly BudgetRule[] | undefined;
}

/**
 * The plan of a batch whose valid items add up to `totals` (from `checkManifest`). Each item is one
 * creation; each link one capture; each submit and evaluation one request; each file one upload
 * initiation on the file service (its chunks and status reads are not budgeted either). Each kind of
 * request is its operation's declaration: its name, method and path, and whether it spends a budget
 * at all (`budget: "none"`, the file service's) come from there.
 */
export function planBatch(totals: BatchTotals, options: PlanOptions = {}): BatchPlan {
  const rules = [...(options.budgets ?? defaultBudgets())];
  // The budget's own matching decides what each request is charged; this budget only answers that.
  const budget = createRateBudget({ baseUrl: "http://127.0.0.1", budgets: rules });
  const sent: [OperationDeclaration, number][] = [
    [uploadInitiation, totals.files],
    [captureLink, totals.links],
    [createPromotion, totals.items],
    [submitVersion, totals.submits],
    [startEvaluation, totals.evaluations],
  ];
  const requests = sent.map(
    ([{ name, method, path, budget: spends }, count]): PlannedRequest => ({
      operation: name,
      method,
      path,
      count,
      budgets: spends === "none" ? [] : budget.budgetsFor({ method, url: path.replaceAll(/\{\w+\}/g, "id") }),
    }),
  );
  budget.close();
  const budgets = rules.map((rule): BudgetPlan => {
    const count = requests.reduce((sum, r) => sum + (r.budgets.includes(rule.name) ? r.count : 0), 0);
    return {
      name: rule.name,
      limit: rule.limit,
      windowMs: rule.windowMs,
      requests: count,
      leastMs: count === 0 ? 0 : Math.floor((count - 1) / rule.limit) * rule.windowMs,
    };
  });
  return {
    items: totals.items,
    requests: requests.filter((request) => request.count > 0),
    budgets,
    leastMs: Math.max(0, ...budgets.map((b) => b.leastMs)),
    uncounted: [
      "a capture answered 202 polls its statusUrl until the import ends",
      "a creation answered 409 upload_not_ready is sent again once the upload is processed",
      "a request answered 429 is sent again once the budget allows",
    ],
  };
}

/** The plan in words, a line each: what each budget is charged and the least time. */
export function describePlan(plan: BatchPlan): string[] {
  const minutes = (ms: number) => (ms === 0 ? "at once" : `${(ms / 60_000).toFixed(1)} min`);
  return [
    `${plan.items} item${plan.items === 1 ? "" : "s"}`,
    ...plan.requests.map(
      (r) => `  ${r.count} x ${r.operation} (${r.budgets.length > 0 ? r.budgets.join(" + ") : "no budget"})`,
    ),
    ...plan.budgets.map(
      (b) =>
        `  budget ${b.name}: ${b.requests} requests at ${b.limit} per ${b.windowMs / 1000} s, ${minutes(b.leastMs)}`,
    ),
    `  least time: ${minutes(plan.leastMs)}`,
  ];
}
