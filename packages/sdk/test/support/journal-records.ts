/** Journal records as fast-check generates them, for the tests of every journal. */
import fc from "fast-check";
import type { JournalRecord } from "../../src/batch/journal.js";

/** Any record of the kinds a journal keeps, with keys and ids of any text. */
export const recordArb: fc.Arbitrary<JournalRecord> = fc.oneof(
  fc.record({ type: fc.constant("batch" as const), batchId: fc.uuid(), at: fc.nat() }),
  fc.record({
    type: fc.constant("intent" as const),
    key: fc.string({ unit: "grapheme", maxLength: 12 }),
    step: fc.constantFrom("upload", "capture", "create", "submit", "evaluate" as const),
    at: fc.nat(),
  }),
  fc.record({
    type: fc.constant("done" as const),
    key: fc.string({ unit: "grapheme", maxLength: 12 }),
    step: fc.constantFrom("create" as const),
    at: fc.nat(),
    ids: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 20 }), {
      maxKeys: 3,
    }),
  }),
);
