import { describe, expect, it } from "vitest";
import { withoutProse } from "./harness/prose.ts";

// The cases are JavaScript source text, so "${" in them is code to parse, not a placeholder.
const source = (text: string) => text.replaceAll("#{", "${");

describe("a bundle without its messages keeps its code and loses its prose", () => {
  it("empties prose strings and template text, and keeps identifiers, short strings and expressions", () => {
    const code = source(
      'throw new E("The body is not the raw bytes that were sent",`The #{n} secret is empty: set it`,"v1,",`x#{y}`,/a b/);',
    );
    expect(withoutProse(code)).toBe(source('throw new E("",`#{n}`,"v1,",`x#{y}`,/a b/);'));
  });

  it("keeps the code parseable: a template with prose on every side of two expressions", () => {
    const code = source("f(`Signed #{a} s ago, over the #{b} s tolerance of this server`);");
    const result = withoutProse(code);
    expect(result).toBe(source("f(`#{a}#{b}`);"));
    // Parsed, not run: what is measured must still be a program.
    expect(() => new Function(result)).not.toThrow();
  });
});
