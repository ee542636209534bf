/**
 * What the runner says of each item once it has gone as far as it can: done (with its ids), failed
 * (with the error and the step), or ambiguous (the step whose request may have reached the service
 * without its answer being recorded, which is never repeated silently).
 */
import type { RecordedError } from "./journal.js";
import { type ItemState, type StepRef, stepName } from "./journal-state.js";

/** One item's outcome. */
export interface BatchOutcome {
  key: string;
  status: "done" | "failed" | "ambiguous";
  promotionId?: string | undefined;
  /** The first version, made with the promotion. */
  versionId?: string | undefined;
  /** The review status the submit answered. */
  submitStatus?: string | undefined;
  evaluationId?: string | undefined;
  /** Why it failed, and at which step. */
  error?: (RecordedError & StepRef) | undefined;
  /** The step that may have reached the service, its answer never recorded. */
  ambiguous?: StepRef | undefined;
  /**
   * Steps that were ambiguous and were repeated on purpose (`retryAmbiguous`, `--retry-ambiguous`):
   * each may have made its record twice at the service (look for the item's key in the web app).
   */
  retried?: StepRef[] | undefined;
  /** True when the journal had it finished already: nothing was sent for it in this run. */
  fromJournal?: boolean | undefined;
}

/** The outcome an item's journal state tells. */
export function outcomeOf(state: ItemState, status: BatchOutcome["status"]): BatchOutcome {
  const created = state.done[stepName({ step: "create" })];
  return {
    key: state.key,
    status,
    promotionId: created?.["promotionId"],
    versionId: created?.["versionId"],
    submitStatus: state.done["submit"]?.["status"],
    evaluationId: state.done["evaluate"]?.["evaluationId"],
    error:
      status === "failed" && state.failed
        ? { ...state.failed.error, step: state.failed.step, index: state.failed.index }
        : undefined,
    ambiguous: status === "ambiguous" ? state.ambiguous : undefined,
    retried: state.retried,
  };
}

/** Where an item stands in a journal, for a report: an outcome, or `unfinished` (steps left to run). */
export type ItemReport = Omit<BatchOutcome, "status" | "fromJournal"> & {
  status: BatchOutcome["status"] | "unfinished";
};

/**
 * What the journal says of an item: `ambiguous` while a visible step is open, `failed` while its last
 * failure stands, `done` once created with no step open (the journal does not know which steps the
 * manifest asked for: a re-run finishes them), else `unfinished`.
 */
export function reportOf(state: ItemState): ItemReport {
  const status = state.ambiguous
    ? "ambiguous"
    : state.failed
      ? "failed"
      : state.done["create"] && !state.interrupted
        ? "done"
        : "unfinished";
  return { ...outcomeOf(state, status === "unfinished" ? "done" : status), status };
}
