/**
 * The codes of the retryable errors a store raises when its backend does not answer and it fails
 * closed, one per promise the state serves: the packages' codes, kept in one place so that every
 * backend raises the same ones.
 */
export const STORE_CODES = {
  /** The budget's window operation (rate-budget): the request was not sent. */
  window: "BUDGET_STORE_UNAVAILABLE",
  /** A webhook claim or release (webhook-verify): the delivery was not processed. */
  claim: "REPLAY_STORE_FAILED",
  /** A resume point (upload-chunker): the upload was not started. */
  value: "RESUME_STORE_UNAVAILABLE",
  /** A compare-and-set of a value (a batch journal's records and lease): nothing was changed. */
  swap: "STORE_SWAP_UNAVAILABLE",
} as const;
