/**
 * A bundle with its messages taken out: every string and template text that reads as prose (it holds
 * a space and is at least 12 characters long) emptied, code untouched. The bundle's size without
 * them tells how much of a package's weight is wording and how much is behaviour: a package still
 * over its budget without a word of its messages cannot be brought within it by shorter ones.
 */
import ts from "typescript";

const MIN_PROSE_LENGTH = 12;

function isProse(text: string): boolean {
  return text.length >= MIN_PROSE_LENGTH && /\s/.test(text);
}

/** The [start, end) ranges of prose text in `code`, inside their quotes or template delimiters. */
function proseRanges(code: string): [number, number][] {
  const file = ts.createSourceFile("bundle.js", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const ranges: [number, number][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (isProse(node.text)) ranges.push([node.getStart(file) + 1, node.end - 1]);
    } else if (ts.isTemplateExpression(node)) {
      // A template is one message: judged by all its text, emptied part by part, expressions kept.
      const parts = [node.head, ...node.templateSpans.map((span) => span.literal)];
      if (isProse(parts.map((part) => part.text).join(""))) {
        for (const part of parts) {
          // `…${, }…${ and }…`: the text sits after the first character, before "${" or "`".
          const end = ts.isTemplateTail(part) ? part.end - 1 : part.end - 2;
          ranges.push([part.getStart(file) + 1, end]);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return ranges;
}

/** `code` with the text of every prose string and template part removed (the quotes stay). */
export function withoutProse(code: string): string {
  let out = "";
  let from = 0;
  for (const [start, end] of proseRanges(code).sort((a, b) => a[0] - b[0])) {
    out += code.slice(from, start);
    from = end;
  }
  return out + code.slice(from);
}
