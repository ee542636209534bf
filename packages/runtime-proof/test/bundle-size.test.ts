/**
 * Bundle budgets, minified and gzipped with esbuild, with tree-shaking checks, printed beside the
 * peers a user would pick instead.
 */
import { describe, expect, it } from "vitest";
import {
  ADAPTER_NAMES,
  adapterNamesIn,
  measureAll,
  OUR_TARGETS,
  REPORTED_OVER_BUDGET,
  sizeTable,
  TRACING_RAISE,
  WEBHOOK_WORKER,
  WITHOUT_ADAPTER,
} from "./harness/sizes.ts";

describe("bundle sizes", () => {
  it("every package is within its budget, and one small export pulls far less than the whole", async () => {
    const results = await measureAll();
    console.log(`\n${sizeTable(results)}`);
    const ours = results.filter((r) => r.kind !== "peer");
    expect(ours.filter((r) => r.error !== undefined)).toEqual([]);
    for (const r of ours.filter((r) => r.budget !== undefined)) {
      const message = `${r.label}: ${r.gzipped} bytes min+gzip, budget ${r.budget}`;
      const reported = REPORTED_OVER_BUDGET[r.label];
      if (reported !== undefined) {
        console.warn(
          `\n!!! runtime-proof: ${r.label} is OVER its bundle budget (reported ${reported.reported} bytes ${reported.why}) !!!\n`,
        );
        // Still over: once fixed this fails, so the entry is removed and the budget enforced.
        expect(
          r.gzipped,
          `${message}: now within budget, remove it from REPORTED_OVER_BUDGET`,
        ).toBeGreaterThan(r.budget!);
        // And no heavier than reported: a package over budget must not quietly grow further.
        expect(
          r.gzipped,
          `${message}: heavier than the ${reported.reported} bytes reported`,
        ).toBeLessThanOrEqual(reported.reported);
        // The decision rests on what the weight is, measured with every message taken out (against a
        // peer, the peer also without its messages: like with like).
        const peer = results.find((p) => p.kind === "peer" && p.label === r.atMost);
        const bar = r.atMost === undefined ? r.budget! : peer!.withoutMessagesGzipped!;
        if (reported.because === "messages") {
          // The wording the issue keeps is the gap: the code alone is within the budget, and once it
          // is not, this fails and the decision is made again.
          expect(
            r.withoutMessagesGzipped,
            `${message}: over ${bar} even without its messages, so the gap is no longer the wording`,
          ).toBeLessThanOrEqual(bar);
        } else {
          // Behaviour is the gap: still over without messages. Once shorter messages alone could
          // do, this fails and the decision is made again.
          expect(
            r.withoutMessagesGzipped,
            `${message}: within ${bar} without its messages, so shorter ones would do`,
          ).toBeGreaterThan(bar);
        }
      } else {
        expect(r.gzipped, message).toBeLessThanOrEqual(r.budget!);
        // And smaller than the peer a user would pick instead, measured in this same run.
        if (r.under !== undefined) {
          const peer = results.find((p) => p.kind === "peer" && p.label === r.under);
          expect(peer?.gzipped, `${r.under} was measured`).toBeDefined();
          expect(r.gzipped, `${message}, vs ${r.under} at ${peer!.gzipped}`).toBeLessThan(peer!.gzipped!);
        }
      }
    }
    // Like with like: without messages, an entry held under a peer weighs less than the peer does.
    for (const r of ours.filter((r) => r.under !== undefined)) {
      const peer = results.find((p) => p.kind === "peer" && p.label === r.under);
      expect(r.withoutMessagesGzipped, `${r.label} without messages vs ${r.under}`).toBeLessThan(
        peer!.withoutMessagesGzipped!,
      );
    }
    // Tree shaking: a single small export is at most a third of the whole package.
    for (const shaken of ours.filter((r) => r.kind === "tree-shaken")) {
      const whole = ours.find((r) => shaken.label.startsWith(`${r.label}:`));
      expect(whole, shaken.label).toBeDefined();
      expect(shaken.gzipped!, `${shaken.label} vs the whole package`).toBeLessThanOrEqual(
        whole!.gzipped! / 3,
      );
    }
    // The peers were measured in the same run (a peer that does not bundle is reported, not hidden).
    expect(results.filter((r) => r.kind === "peer").length).toBe(5);
    // Every publishable package with a budget in issue 9 is measured.
    const labels = OUR_TARGETS.map((t) => t.label);
    for (const name of ["errors", "webhook-verify", "upload-chunker", "sdk"])
      expect(labels).toContain(`@promo-review/${name}`);
    // Issue 19's budgets are the ones measured.
    const budgets = Object.fromEntries(OUR_TARGETS.map((t) => [t.label, t.budget]));
    expect(budgets["@promo-review/errors"]).toBe(3 * 1024);
    expect(budgets["@promo-review/webhook-verify/signature"]).toBe(4 * 1024);
    // ... or those raised by issue 26's measured tracing weight (TRACING_RAISE), and no more.
    expect(budgets["@promo-review/webhook-verify"]).toBe(
      9 * 1024 + TRACING_RAISE["@promo-review/webhook-verify"],
    );
    expect(budgets["@promo-review/webhook-verify: createWebhookVerifier only"]).toBe(
      9 * 1024 + TRACING_RAISE["@promo-review/webhook-verify: createWebhookVerifier only"],
    );
    expect(Object.values(TRACING_RAISE).every((bytes) => bytes < 1024)).toBe(true);
    // Issue 34's ceilings: the Worker that verifies webhooks at 6.5 KB, the facade at 35 KB (issue 19's was 30 KB).
    expect(budgets[WEBHOOK_WORKER.label]).toBe(6.5 * 1024);
    expect(budgets["@promo-review/sdk"]).toBe(35 * 1024);
    // upload-chunker's budget is tus-js-client's size in this same run.
    const chunker = results.find((r) => r.label === "@promo-review/upload-chunker");
    const tus = results.find((r) => r.label === "tus-js-client");
    expect(tus?.gzipped, "tus-js-client was measured").toBeDefined();
    expect(chunker?.budget).toBe(tus!.gzipped);
  });

  it("a bundle that does not import @promo-review/opentelemetry carries none of its names", async () => {
    // The check can fail: the adapter's own bundle holds every one of them.
    const adapter = {
      label: "@promo-review/opentelemetry",
      contents: `export * from "@promo-review/opentelemetry";`,
      kind: "ours" as const,
    };
    expect(await adapterNamesIn(adapter)).toEqual([...ADAPTER_NAMES]);
    for (const target of WITHOUT_ADAPTER) expect(await adapterNamesIn(target), target.label).toEqual([]);
  });
});
