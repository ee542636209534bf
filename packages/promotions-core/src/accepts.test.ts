import { ValidationError } from "@promo-review/errors";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withSelectedProfile } from "../../../testing/simulator.ts";
import { clientFor, simTextBody, uploadCompleted } from "../test/support/sim.js";
import { FILE_FORMATS } from "./limits.js";
import { validateCreatePromotion, validateNewVersion } from "./validate.js";

let sim: Simulator;
let uploadIds: string[];
beforeAll(async () => {
  sim = await startSimulator(withSelectedProfile({ mainApiLimit: 1_000_000, seed: 8 }));
  uploadIds = [await uploadCompleted(sim), await uploadCompleted(sim)];
});
afterAll(() => sim.close());

// Mostly valid values, sometimes just over a stated limit or of the wrong kind: enough valid bodies to
// create, enough invalid ones to refuse, and every limit probed on both sides.
function risky<T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: invalid as fc.Arbitrary<T>, weight: 1 });
}
const upTo = (limit: number, char: string) =>
  risky(
    fc.constantFrom(0, 1, limit - 1, limit).map((n) => char.repeat(n)),
    fc.constant(char.repeat(limit + 1)),
  );
const detailsArb = upTo(1500, "d");
const tagArb = risky(
  fc.oneof(
    fc
      .string({ minLength: 1, maxLength: 8 })
      .filter((t) => t.trim() !== "" && !t.trim().startsWith("Var-") && t.trim() !== "TESTING"),
    fc.constantFrom("testing", " ok ", "ok", "Var"),
    upTo(255, "t").filter((t) => t !== ""),
  ),
  fc.constantFrom("TESTING", "Var-x", " Var-y ", "  ", 7, "t".repeat(256)),
);
const metadataArb = fc.dictionary(
  risky(
    fc.constantFrom("a-b_C9", "campaign", "k".repeat(128), "x_1"),
    fc.constantFrom("bad key", "k".repeat(129), ""),
  ),
  risky(upTo(1024, "v"), fc.constant(1)),
  { maxKeys: 21 },
);
const dateArb = risky(
  fc.constantFrom(
    "2030-01-31",
    "2030-01-31T10:00:00Z",
    "2030-01-31T10:00:00.123456789+05:30",
    "2030-01-31T10:00-01:00",
  ),
  fc.constantFrom("2030-02-30", "2030-01-31T10:00", "2030-01-31T10:00:00", "31/01/2030"),
);
const dateTimeArb = risky(
  fc.constantFrom("2030-01-31T10:00:00Z", "2030-06-01T00:00+02:00"),
  fc.constant("2030-01-31"),
);

function bodyArb(sim: Simulator) {
  const ids = (list: { id: string }[]) =>
    risky(
      fc.subarray(
        list.map((x) => x.id),
        { minLength: 1, maxLength: 2 },
      ),
      fc.constantFrom([], ["not-a-uuid"]),
    );
  const content = fc.oneof(
    fc.record({
      fileFormat: fc.constant("text"),
      content: risky(fc.string({ minLength: 1, maxLength: 20 }), fc.constant("")),
    }),
    fc.record({
      fileFormat: fc.constantFrom(...FILE_FORMATS.filter((f) => f !== "text")),
      uploadIds: risky(fc.subarray(uploadIds, { minLength: 1 }), fc.constant([])),
    }),
    fc.record({
      variations: fc.array(
        fc.record(
          {
            content: fc.string({ minLength: 1, maxLength: 10 }),
            details: detailsArb,
            channelIds: fc.subarray(sim.reference.channels.map((c) => c.id)),
          },
          { requiredKeys: ["content"] },
        ),
        { minLength: 1, maxLength: 21 },
      ),
    }),
  );
  return fc
    .tuple(
      fc.record(
        {
          promotionName: risky(fc.string({ minLength: 1, maxLength: 10 }), fc.constant("")),
          productIds: ids(sim.reference.products),
          channelIds: ids(sim.reference.channels),
          jurisdictionId: fc.constant(sim.reference.jurisdictions[0]!.id),
          details: detailsArb,
          tags: fc.array(tagArb, { maxLength: 22 }),
          metadata: metadataArb,
          deadline: dateArb,
          nextReviewDate: dateTimeArb,
          promotionType: risky(fc.constantFrom("single", "carousel", "variations"), fc.constant("bundle")),
          futureField: fc.jsonValue(),
        },
        { requiredKeys: ["promotionName", "productIds", "channelIds", "jurisdictionId"] },
      ),
      content,
    )
    .map(([fields, body]) => ({ ...fields, ...body }) as Record<string, unknown>);
}

describe("whatever the client accepts, the simulator accepts", () => {
  it("creates every promotion the client lets through, and the client refuses the rest locally", async () => {
    const promotions = clientFor(sim);
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(bodyArb(sim), async (body) => {
        let sent: unknown;
        try {
          sent = validateCreatePromotion(body as never);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          refused++;
          return;
        }
        accepted++;
        const created = await promotions.create(sent as never, { correlationId: `prop-${accepted}` });
        expect(created.version).toBe(1);
      }),
      { numRuns: 300 },
    );
    console.log(`client-accepts property: ${accepted} created, ${refused} refused locally`);
    // Both sides of the rule set were exercised.
    expect(accepted).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });
  it("adds every version the client lets through", async () => {
    const promotions = clientFor(sim);
    const { promotionId } = await promotions.create(simTextBody(sim, { promotionName: "Versions" }));
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          fileFormat: fc.constantFrom(...FILE_FORMATS, undefined),
          content: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
          uploadIds: fc.option(fc.subarray(uploadIds), { nil: undefined }),
          caption: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
          details: detailsArb,
        }),
        async (body) => {
          const clean = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
          try {
            validateNewVersion(clean);
          } catch {
            return;
          }
          expect((await promotions.createVersion(promotionId, clean)).version).toBeGreaterThan(1);
        },
      ),
      { numRuns: 100 },
    );
  });
});
