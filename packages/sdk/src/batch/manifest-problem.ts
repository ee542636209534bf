/** A manifest line's problem: where it is (line, key, field) and what is wrong. */
export interface ManifestProblem {
  /** The line number (from 1; a CSV record spanning lines is numbered by its first). */
  line: number;
  /** The line's `key`, when it has one that is a string. */
  key?: string | undefined;
  /** The field (dotted path, `variations.1.details`), or `(line)` for the whole line. */
  field: string;
  message: string;
}

/** One line of a problem report: `line 4 (key spring-fr), tags.2: must be ...`. */
export function describeProblem(problem: ManifestProblem): string {
  const key = problem.key === undefined ? "" : ` (key ${JSON.stringify(problem.key)})`;
  return `line ${problem.line}${key}, ${problem.field}: ${problem.message}`;
}
