/**
 * The budget's window operation, as every store sees it: windows of an exact sliding-window rule and
 * the answer to "may one more request go now?".
 */

/** One window of an exact sliding-window rule: at most `limit` admissions in any `windowMs`. */
export interface StoreWindow {
  /** Unique among the windows a key is asked about together (a rule's name, `<name>:burst`). */
  id: string;
  /** Admissions allowed in any window (a positive integer). */
  limit: number;
  /** The window's length in milliseconds. */
  windowMs: number;
  /** How long after its decision an unsettled ticket counts from (the longest latency assumed). */
  holdMs?: number | undefined;
}

/** A store's answer to "may one more request go now?". */
export type Decision =
  | { ok: true }
  | {
      ok: false;
      /** Milliseconds until a retry can succeed at the earliest (a lower bound: others may take the room). */
      waitMs: number;
      /** Ids of the windows that are full (empty while paused). */
      full: string[];
      /** True when the key is paused after a 429 rather than out of room. */
      paused: boolean;
    };
