/**
 * The spec's "not shown" points and the choices made at each, read from docs/gaps.md's table
 * ("Every "not shown" point of the spec"), so that the description states each choice as a choice,
 * in the words the repository keeps, and cannot drift from them.
 */

/** One row of docs/gaps.md's table of "not shown" points. */
export interface GapChoice {
  /** The row number (`#`), which the code and docs cite as "docs/gaps.md row N". */
  readonly row: number;
  /** The spec point left "not shown". */
  readonly point: string;
  /** What the simulator (the stand-in service) does there. */
  readonly simulator: string;
  /** What the SDK's clients accept there. */
  readonly client: string;
}

const TABLE_HEADING = '## Every "not shown" point of the spec';

/** Splits a markdown table row on the `|` that are not escaped (`\|`) and not inside backticks. */
function cells(line: string): string[] {
  const out: string[] = [];
  let current = "";
  let inCode = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === "\\" && line[i + 1] === "|") {
      current += "|";
      i++;
    } else if (char === "`") {
      inCode = !inCode;
      current += char;
    } else if (char === "|" && !inCode) {
      out.push(current.trim());
      current = "";
    } else current += char;
  }
  return out.slice(1);
}

/**
 * Reads the table of "not shown" points from the text of docs/gaps.md. Throws when the table is not
 * there, so a renamed heading is noticed rather than described as "no gaps".
 */
export function parseGaps(markdown: string): GapChoice[] {
  const start = markdown.indexOf(TABLE_HEADING);
  if (start < 0) throw new Error(`docs/gaps.md has no section "${TABLE_HEADING}"`);
  const rest = markdown.slice(start + TABLE_HEADING.length);
  const end = rest.search(/\n## /);
  const gaps: GapChoice[] = [];
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split("\n")) {
    const [row, point, simulator, client] = cells(line);
    if (!row || !/^\d+$/.test(row) || point === undefined || simulator === undefined || client === undefined)
      continue;
    gaps.push({ row: Number(row), point, simulator, client });
  }
  if (gaps.length === 0) throw new Error(`docs/gaps.md's section "${TABLE_HEADING}" has no rows`);
  return gaps;
}
