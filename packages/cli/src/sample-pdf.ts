/**
 * A sample promotion as a small, valid PDF made in memory, so the demo needs no file on disk and its
 * upload is large enough (a few hundred KB) to take several chunks and move the progress bar.
 */

const encoder = new TextEncoder();

const LINES = [
  "Spring Savings Account - limited offer",
  "Earn a guaranteed 5.10% AER on balances up to 85,000 GBP. Open in minutes.",
  "Bonus: a further 0.50% for the first 12 months when you pay in 500 GBP a month.",
  "Capital at risk on the linked investment option. Past performance is not a guide.",
  "Terms and conditions apply. Rates are variable (they may change at any time).",
];

/** Escapes text for a PDF literal string. */
function literal(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function pageContent(page: number, linesPerPage: number): string {
  const body = [`BT /F1 9 Tf 40 800 Td 11 TL ${literal(`Page ${page + 1}`)} Tj`];
  for (let i = 0; i < linesPerPage; i++) {
    body.push(`${literal(`${page + 1}.${i + 1} ${LINES[(page + i) % LINES.length]}`)} '`);
  }
  body.push("ET");
  return body.join("\n");
}

/**
 * Builds the PDF: pages of offer text until the file reaches `targetBytes` (default 320 KiB), with a
 * correct cross-reference table so PDF readers open it.
 */
export function samplePdf(targetBytes = 320 * 1024): Uint8Array<ArrayBuffer> {
  const linesPerPage = 68;
  const pageBytes = encoder.encode(pageContent(0, linesPerPage)).length + 200;
  const pages = Math.max(1, Math.ceil(targetBytes / pageBytes));
  // Objects: 1 catalog, 2 pages, 3 font, then a page and its content stream per page.
  const objects: string[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Count ${pages} /Kids [${Array.from({ length: pages }, (_, i) => `${4 + i * 2} 0 R`).join(" ")}] >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  for (let i = 0; i < pages; i++) {
    const content = pageContent(i, linesPerPage);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
      `<< /Length ${encoder.encode(content).length} >>\nstream\n${content}\nendstream`,
    );
  }
  let pdf = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  // Offsets are byte positions; the header's binary marker is the only non-ASCII text, so count bytes.
  let length = encoder.encode(pdf).length;
  objects.forEach((object, index) => {
    offsets.push(length);
    const text = `${index + 1} 0 obj\n${object}\nendobj\n`;
    pdf += text;
    length += encoder.encode(text).length;
  });
  const xref = [
    "xref",
    `0 ${objects.length + 1}`,
    "0000000000 65535 f ",
    ...offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n `),
    "trailer",
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    "startxref",
    String(length),
    "%%EOF",
    "",
  ].join("\n");
  return encoder.encode(pdf + xref);
}
