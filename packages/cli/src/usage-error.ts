/** One problem with how the command was called: which option or argument, and what is wrong. */
export interface UsageProblem {
  /** The option or argument at fault, e.g. `--details` or `<file>`. */
  field: string;
  message: string;
}

/** A mistake in how the command was called, found by the command itself (exit code 2). */
export class UsageError extends Error {
  /** Every problem found, so that one run names them all. */
  readonly problems: UsageProblem[];

  constructor(message: string, problems: UsageProblem[] = []) {
    super(message);
    this.name = "UsageError";
    this.problems = problems;
  }
}
