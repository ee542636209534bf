import { describe, expect, it } from "vitest";
import { samplePdf } from "./sample-pdf.js";

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

describe("the sample PDF", () => {
  it("is a few hundred KB by default, and about the size asked for", () => {
    expect(samplePdf().length).toBeGreaterThan(300 * 1024);
    expect(samplePdf().length).toBeLessThan(400 * 1024);
    expect(samplePdf(50 * 1024).length).toBeLessThan(80 * 1024);
  });

  it("is well formed: header, every xref offset at its object, startxref at the table, %%EOF", () => {
    const pdf = text(samplePdf(60 * 1024));
    expect(pdf.startsWith("%PDF-1.4\n")).toBe(true);
    expect(pdf.endsWith("%%EOF\n")).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1]);
    expect(pdf.slice(startxref, startxref + 4)).toBe("xref");
    const entries = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(entries.length).toBeGreaterThan(3);
    entries.forEach((offset, index) => {
      expect(pdf.slice(offset, offset + `${index + 1} 0 obj`.length)).toBe(`${index + 1} 0 obj`);
    });
    // Each stream's /Length is its byte length.
    for (const m of pdf.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
      const start = (m.index ?? 0) + m[0].length;
      expect(pdf.slice(start + Number(m[1]), start + Number(m[1]) + "\nendstream".length)).toBe(
        "\nendstream",
      );
    }
  });

  it("escapes the characters PDF strings reserve", () => {
    expect(text(samplePdf(1))).toContain("\\(");
  });
});
