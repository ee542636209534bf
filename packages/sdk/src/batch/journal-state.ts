/**
 * Where each item of a batch stands, read from its journal: the steps done and their ids, the last
 * failure, and the step whose intent has no outcome. A visible step (create, submit, evaluate) left
 * so is ambiguous: the request may have reached the service. Any other such step is simply to do.
 */
import {
  type BatchStep,
  type JournalRecord,
  type RecordedError,
  type StepIds,
  VISIBLE_STEPS,
} from "./journal.js";

/** One step's place in an item: `index` tells an item's uploads apart. */
export interface StepRef {
  step: BatchStep;
  index?: number | undefined;
}

/** Where one item stands. */
export interface ItemState {
  key: string;
  /** The ids of each step done, by `step` or `step:index`. */
  done: Record<string, StepIds>;
  /** The last failure of a step, when that step has not been done since. */
  failed?: (StepRef & { error: RecordedError }) | undefined;
  /** A visible step whose request may have reached the service, its answer never recorded. */
  ambiguous?: StepRef | undefined;
  /** A step started whose answer was lost but which is safe to do again (an upload, a capture). */
  interrupted?: StepRef | undefined;
  /**
   * The steps that were ambiguous and were repeated on purpose (`retryAmbiguous`): each may have made
   * its record twice at the service. Kept once the step is done, so a report still says it.
   */
  retried?: StepRef[] | undefined;
  /** The notes steps keep for their resume, by `step:index:name`. */
  notes: Record<string, unknown>;
}

/** A batch's state: its id (from the first record) and each item's. */
export interface JournalState {
  batchId?: string | undefined;
  items: Map<string, ItemState>;
}

/** The name a step is kept under: `create`, or `upload:1` for an item's second file. */
export const stepName = (ref: StepRef): string =>
  ref.index === undefined ? ref.step : `${ref.step}:${ref.index}`;

/** Folds one record into the state (records in the order written). */
export function applyRecord(state: JournalState, record: JournalRecord): JournalState {
  if (record.type === "batch") {
    state.batchId ??= record.batchId;
    return state;
  }
  let item = state.items.get(record.key);
  if (!item) {
    item = { key: record.key, done: {}, notes: {} };
    state.items.set(record.key, item);
  }
  const ref: StepRef =
    record.index === undefined ? { step: record.step } : { step: record.step, index: record.index };
  const name = stepName(ref);
  const open = item.ambiguous ?? item.interrupted;
  const closes = open !== undefined && stepName(open) === name;
  switch (record.type) {
    case "intent":
      // An item runs one step at a time: a new intent replaces any open one (a re-run's retry).
      item.ambiguous = VISIBLE_STEPS.includes(record.step) ? ref : undefined;
      item.interrupted = VISIBLE_STEPS.includes(record.step) ? undefined : ref;
      if (record.retried && !item.retried?.some((r) => stepName(r) === name))
        item.retried = [...(item.retried ?? []), ref];
      break;
    case "done":
      item.done[name] = record.ids;
      if (item.failed && stepName(item.failed) === name) item.failed = undefined;
      if (closes) item.ambiguous = item.interrupted = undefined;
      break;
    case "failed":
      item.failed = { ...ref, error: record.error };
      if (closes) item.ambiguous = item.interrupted = undefined;
      break;
    case "note":
      item.notes[`${name}:${record.name}`] = record.value;
      break;
  }
  return state;
}

/** Reads a journal to the end into each item's state. */
export async function readState(records: AsyncIterable<JournalRecord>): Promise<JournalState> {
  const state: JournalState = { items: new Map() };
  for await (const record of records) applyRecord(state, record);
  return state;
}
