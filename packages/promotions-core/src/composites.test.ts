/**
 * The operations of several requests run as declared: each is published under its declaration's name,
 * and runs its declared steps, in order, as its children. Real HTTP against the simulator.
 */
import type { ObservedOperation } from "@promo-review/errors/observe";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, simTextBody } from "../test/support/sim.js";
import {
  type CompositeDeclaration,
  decisionOfLatestVersion,
  refreshReference,
  submitLatestVersion,
} from "./operations/composites.js";

const sim = useSimulator(startSimulator, { seed: 34 });

/**
 * A client whose observer keeps every operation started (its name and the one it runs inside) and
 * every request's method, template and operation.
 */
function observedClient() {
  const started: { name: string; handle: ObservedOperation; parent: ObservedOperation | undefined }[] = [];
  const requests: { route: string; parent: ObservedOperation | undefined }[] = [];
  const client = clientFor(sim(), {
    telemetry: {
      operationStarted: ({ name, parent }) => {
        const handle = { name } as unknown as ObservedOperation;
        started.push({ name, handle, parent });
        return handle;
      },
      requestStarted: ({ method, urlTemplate, parent }) => {
        requests.push({ route: `${method} ${urlTemplate}`, parent });
        return undefined;
      },
    },
  });
  /** The last operation named as `composite` is. */
  const last = (composite: CompositeDeclaration) => {
    const operation = started.findLast((o) => o.name === composite.name);
    expect(operation, composite.name).toBeDefined();
    return operation!.handle;
  };
  /** The operations run inside the last `composite`, by name, in order. */
  const stepsOf = (composite: CompositeDeclaration) =>
    started.filter((o) => o.parent === last(composite)).map((o) => o.name);
  /** The requests sent inside the last `composite`, as `METHOD template`, sorted. */
  const requestsOf = (composite: CompositeDeclaration) =>
    requests
      .filter((r) => r.parent === last(composite))
      .map((r) => r.route)
      .sort();
  return { client, stepsOf, requestsOf };
}

const routeOf = (step: { method: string; path: string }) => `${step.method} ${step.path}`;

describe("an operation of several requests runs its declared steps, in order, inside it", () => {
  it("promotions.submitLatest and promotions.decisionOfLatest: the read of the promotion, then the step", async () => {
    const { client, stepsOf } = observedClient();
    const { promotionId } = await client.create(simTextBody(sim()));
    await client.submitLatest(promotionId);
    await client.decisionOfLatest(promotionId);
    for (const composite of [submitLatestVersion, decisionOfLatestVersion]) {
      expect(stepsOf(composite)).toEqual(composite.steps.map((step) => step.name));
    }
  });

  it("reference.refresh: one read of each list asked for, as that list's declaration states it", async () => {
    const { client, requestsOf } = observedClient();
    await client.reference.refresh();
    expect(requestsOf(refreshReference)).toEqual(refreshReference.steps.map(routeOf).sort());
    for (const [index, kind] of (
      ["channels", "jurisdictions", "products", "targetMarkets"] as const
    ).entries()) {
      await client.reference.refresh([kind]);
      expect(requestsOf(refreshReference)).toEqual([routeOf(refreshReference.steps[index]!)]);
    }
  });
});
