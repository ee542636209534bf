import { describe, expect, it } from "vitest";
import type { JournalRecord } from "./journal.js";
import { readState, stepName } from "./journal-state.js";
import { reportOf } from "./outcome.js";

async function* from(records: JournalRecord[]) {
  yield* records;
}

const at = 0;

describe("an item's state is read from its journal records", () => {
  it("keeps the batch id of the first batch record and each step's ids", async () => {
    const state = await readState(
      from([
        { type: "batch", batchId: "b1", at },
        { type: "batch", batchId: "b2", at },
        { type: "intent", key: "a", step: "upload", index: 0, at },
        { type: "note", key: "a", step: "upload", index: 0, at, name: "resume", value: { uploadId: "u" } },
        { type: "done", key: "a", step: "upload", index: 0, at, ids: { uploadId: "u" } },
        { type: "intent", key: "a", step: "create", at },
        { type: "done", key: "a", step: "create", at, ids: { promotionId: "p", versionId: "v" } },
      ]),
    );
    expect(state.batchId).toBe("b1");
    expect(state.items.get("a")).toEqual({
      key: "a",
      done: { "upload:0": { uploadId: "u" }, create: { promotionId: "p", versionId: "v" } },
      notes: { "upload:0:resume": { uploadId: "u" } },
      ambiguous: undefined,
      interrupted: undefined,
    });
  });
});

describe("a visible step with an intent and no outcome is ambiguous; any other is only interrupted", () => {
  it.each(["create", "submit", "evaluate"] as const)("%s without its answer is ambiguous", async (step) => {
    const state = await readState(from([{ type: "intent", key: "a", step, at }]));
    expect(state.items.get("a")?.ambiguous).toEqual({ step });
    expect(state.items.get("a")?.interrupted).toBeUndefined();
  });

  it.each(["upload", "capture"] as const)("%s without its answer is to be done again", async (step) => {
    const state = await readState(from([{ type: "intent", key: "a", step, index: 0, at }]));
    expect(state.items.get("a")?.interrupted).toEqual({ step, index: 0 });
    expect(state.items.get("a")?.ambiguous).toBeUndefined();
  });

  it("a failure closes the step and is kept until the step is done", async () => {
    const error = { code: "SERVICE_ERROR", message: "down" };
    const failed = await readState(
      from([
        { type: "intent", key: "a", step: "submit", at },
        { type: "failed", key: "a", step: "submit", at, error },
      ]),
    );
    expect(failed.items.get("a")).toMatchObject({ failed: { step: "submit", error }, ambiguous: undefined });
    const retried = await readState(
      from([
        { type: "intent", key: "a", step: "submit", at },
        { type: "failed", key: "a", step: "submit", at, error },
        { type: "intent", key: "a", step: "submit", at },
        { type: "done", key: "a", step: "submit", at, ids: { status: "pending" } },
      ]),
    );
    expect(retried.items.get("a")).toMatchObject({
      failed: undefined,
      ambiguous: undefined,
      done: { submit: { status: "pending" } },
    });
  });

  it("an outcome of another step does not close the open one", async () => {
    const state = await readState(
      from([
        { type: "intent", key: "a", step: "create", at },
        { type: "done", key: "a", step: "upload", index: 0, at, ids: { uploadId: "u" } },
      ]),
    );
    expect(state.items.get("a")?.ambiguous).toEqual({ step: "create" });
    expect(stepName({ step: "upload", index: 2 })).toBe("upload:2");
  });
});

describe("a report tells where each item stands", () => {
  it("is ambiguous, failed, done or unfinished, with the ids it has", async () => {
    const error = { code: "SERVICE_ERROR", message: "down" };
    const state = await readState(
      from([
        { type: "intent", key: "a", step: "create", at },
        { type: "intent", key: "b", step: "create", at },
        { type: "failed", key: "b", step: "create", at, error },
        { type: "intent", key: "c", step: "create", at },
        { type: "done", key: "c", step: "create", at, ids: { promotionId: "p", versionId: "v" } },
        { type: "intent", key: "c", step: "evaluate", at },
        { type: "done", key: "c", step: "evaluate", at, ids: { evaluationId: "e" } },
        { type: "intent", key: "d", step: "upload", index: 0, at },
      ]),
    );
    const reports = [...state.items.values()].map(reportOf);
    expect(reports.map((r) => [r.key, r.status])).toEqual([
      ["a", "ambiguous"],
      ["b", "failed"],
      ["c", "done"],
      ["d", "unfinished"],
    ]);
    expect(reports[0]!.ambiguous).toEqual({ step: "create" });
    expect(reports[1]!.error).toMatchObject({ step: "create", code: "SERVICE_ERROR" });
    expect(reports[2]).toMatchObject({ promotionId: "p", versionId: "v", evaluationId: "e" });
  });
});
