import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { BATCH_ID_METADATA, ITEM_KEY_METADATA, MAX_ITEM_METADATA_KEYS } from "./items.js";
import { checkManifest, type ManifestEntry, type ManifestFormat, readManifest } from "./manifest.js";
import { describeProblem } from "./manifest-problem.js";
import type { TextSource } from "./text-lines.js";

const PRODUCT = "3f1c2a4e-8b7d-4c1e-9a2b-1d3e5f7a9b0c";
const CHANNEL = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
const JURISDICTION = "7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e0f";

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({
    promotionName: "Spring flyer",
    productIds: [PRODUCT],
    channelIds: [CHANNEL],
    jurisdictionId: JURISDICTION,
    fileFormat: "text",
    content: "Save 10% this spring",
    ...fields,
  });

async function entries(source: TextSource, format: ManifestFormat): Promise<ManifestEntry[]> {
  const all: ManifestEntry[] = [];
  for await (const entry of readManifest(source, { format })) all.push(entry);
  return all;
}

const problemsOf = async (text: string, format: ManifestFormat = "jsonl") =>
  (await checkManifest([text], { format })).problems;

describe("a JSON Lines manifest is one promotion a line", () => {
  it("yields each line's item with its line number, skipping blank lines", async () => {
    const text = `${line({ key: "a" })}\n\n${line({ key: "b", submit: true, evaluate: false })}\r\n`;
    const read = await entries([text], "jsonl");
    expect(read.map((entry) => [entry.line, entry.key, entry.problems])).toEqual([
      [1, "a", []],
      [3, "b", []],
    ]);
    expect(read[1]!.item).toMatchObject({ key: "b", submit: true, evaluate: false, fileFormat: "text" });
  });

  it("reports a line that is not JSON, or not an object, by its number", async () => {
    const problems = await problemsOf(`${line({ key: "a" })}\n{oops\n[1]\n`);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [2, "(line)"],
      [3, "(line)"],
    ]);
    expect(problems[0]!.message).toMatch(/is not JSON/);
    expect(problems[1]!.message).toBe("must be a JSON object");
  });

  it("reads bytes as UTF-8 from a Web stream, whatever the chunking", async () => {
    const bytes = new TextEncoder().encode(`${line({ key: "é-1" })}\n${line({ key: "ü-2" })}`);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
        controller.close();
      },
    });
    const read = await entries(stream, "jsonl");
    expect(read.map((entry) => entry.key)).toEqual(["é-1", "ü-2"]);
  });
});

describe("a CSV manifest: lists split on ;, metadata and variations JSON, booleans true or false", () => {
  const header = "key,promotionName,productIds,channelIds,fileFormat,content,tags,metadata,submit,evaluate";
  const row = `k1,"Spring, ""big"" sale",${PRODUCT};${PRODUCT},${CHANNEL},text,"Line one\nline two",spring; sale,"{""campaign"":""spring""}",true,FALSE`;

  it("reads a row into the creation fields and the batch fields", async () => {
    const read = await entries([`${header}\n${row}\n`], "csv");
    expect(read).toHaveLength(1);
    expect(read[0]!.problems).toEqual([]);
    expect(read[0]!.item).toEqual({
      key: "k1",
      promotionName: 'Spring, "big" sale',
      productIds: [PRODUCT, PRODUCT],
      channelIds: [CHANNEL],
      fileFormat: "text",
      content: "Line one\nline two",
      tags: ["spring", "sale"],
      metadata: { campaign: "spring" },
      submit: true,
      evaluate: false,
    });
  });

  it("numbers a record by the line it starts on, for any chunking of the text", async () => {
    const text = `${header}\r\n${row.replace("\n", "\r\n")}\r\n\r\n${row.replace("k1", "k2").replace("text,", "pdf,")}\r\n`;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(text.length), { maxLength: 12 }), async (cuts) => {
        const points = [...new Set([0, ...cuts, text.length])].sort((a, b) => a - b);
        const chunks = points.slice(1).map((end, index) => text.slice(points[index], end));
        const read = await entries(chunks, "csv");
        expect(read.map((entry) => [entry.line, entry.key])).toEqual([
          [2, "k1"],
          [5, "k2"],
        ]);
        expect(read[0]!.item?.content).toBe("Line one\r\nline two");
        // k2 is a pdf with inline content: promotions-core's rule, reported at the line it starts on.
        expect(read[1]!.problems.map((p) => [p.line, p.field])).toEqual([
          [5, "content"],
          [5, "uploadIds"],
        ]);
      }),
      { numRuns: 60 },
    );
  });

  it("reports cells that cannot be read, and a row longer than the header", async () => {
    const problems = await problemsOf(`key,metadata,submit\nk1,{not json},maybe\nk2,,,extra\n`, "csv");
    expect(problems.map((p) => [p.line, p.key, p.field])).toEqual([
      [2, "k1", "metadata"],
      [2, "k1", "submit"],
      [3, "k2", "(line)"],
    ]);
  });

  it("reads a column named like an Object.prototype member like any other column: kept, never dropped", async () => {
    const [csv] = await entries([`${header},__proto__,constructor\n${row},a,b\n`], "csv");
    expect(csv!.problems).toEqual([]);
    const item = csv!.item as unknown as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(item, "__proto__")?.value).toBe("a");
    expect(Object.getOwnPropertyDescriptor(item, "constructor")?.value).toBe("b");
    expect(JSON.stringify(item)).toContain('"__proto__":"a","constructor":"b"');
  });

  it("refuses a header without a key column, or with a repeated or empty column", async () => {
    expect((await problemsOf("name,name,\nx,y,z\n", "csv")).map((p) => p.field)).toEqual([
      "name",
      "(column 3)",
      "key",
    ]);
  });
});

describe("every rule promotions.create checks is checked on every line, before anything is sent", () => {
  it("reports each problem with the line number, the key and the field", async () => {
    const text = [
      line({ key: "ok" }),
      line({ key: "long", details: "d".repeat(1501) }),
      line({ key: "ids", productIds: ["not-a-uuid"], tags: ["TESTING"] }),
      line({ key: "empty", promotionName: "" }),
    ].join("\n");
    const problems = await problemsOf(text);
    expect(problems.map((p) => [p.line, p.key, p.field])).toEqual([
      [2, "long", "details"],
      [3, "ids", "productIds.0"],
      [3, "ids", "tags.0"],
      [4, "empty", "promotionName"],
    ]);
    expect(describeProblem(problems[0]!)).toBe(`line 2 (key "long"), details: ${problems[0]!.message}`);
  });

  it("reports the batch's own fields: key, files, link, submit, evaluate", async () => {
    const pdf = { fileFormat: "pdf", content: undefined };
    const text = [
      line({ key: "" }),
      line({ key: "f", ...pdf, files: [] }),
      line({ key: "g", ...pdf, files: ["a.pdf"], link: "https://example.com/x" }),
      line({ key: "h", ...pdf, link: "ftp://example.com/x", submit: "yes" }),
      line({ key: "i", files: ["a.pdf"] }),
      line({ key: "j", ...pdf, fileFormat: undefined, files: ["a.pdf"] }),
      line({ key: "k", ...pdf, uploadIds: [PRODUCT] }),
      line({ key: "l", ...pdf, link: "https://example.com/x", evaluate: 1 }),
    ].join("\n");
    const problems = await problemsOf(text);
    expect(problems.map((p) => [p.line, p.field])).toEqual([
      [1, "key"],
      [2, "files"],
      [3, "link"],
      [4, "link"],
      [4, "submit"],
      // A text promotion cannot take files: promotions-core's rule, named by the line's own field.
      [5, "files"],
      [6, "fileFormat"],
      [7, "uploadIds"],
      [8, "evaluate"],
    ]);
  });

  it("takes a link alone as the content (the capture gives the format)", async () => {
    const problems = await problemsOf(
      line({ key: "l", fileFormat: undefined, content: undefined, link: "https://example.com/page" }),
    );
    expect(problems).toEqual([]);
  });

  it("refuses files or a link beside variations", async () => {
    const variations = [
      { channelIds: [CHANNEL], content: "a" },
      { channelIds: [CHANNEL], content: "b" },
    ];
    const problems = await problemsOf(
      line({ key: "v", fileFormat: undefined, content: undefined, variations, files: ["a.pdf"] }),
    );
    expect(problems.map((p) => p.field)).toContain("files");
  });
});

describe("a key is unique in the manifest", () => {
  it("reports each repeat at its own line, naming the first", async () => {
    const problems = await problemsOf(
      [line({ key: "a" }), line({ key: "b" }), line({ key: "a" })].join("\n"),
    );
    expect(problems).toEqual([{ line: 3, key: "a", field: "key", message: "repeats the key of line 1" }]);
  });
});

describe(`metadata: at most ${MAX_ITEM_METADATA_KEYS} keys, as the runner adds two`, () => {
  const metadataOf = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));

  it(`takes ${MAX_ITEM_METADATA_KEYS} keys and refuses ${MAX_ITEM_METADATA_KEYS + 1}`, async () => {
    expect(await problemsOf(line({ key: "a", metadata: metadataOf(MAX_ITEM_METADATA_KEYS) }))).toEqual([]);
    const problems = await problemsOf(line({ key: "a", metadata: metadataOf(MAX_ITEM_METADATA_KEYS + 1) }));
    expect(problems.map((p) => p.field)).toEqual(["metadata"]);
    expect(problems[0]!.message).toContain(ITEM_KEY_METADATA);
  });

  it("refuses the runner's own keys, and checks the rest with promotions-core's rules", async () => {
    const problems = await problemsOf(
      line({ key: "a", metadata: { [BATCH_ID_METADATA]: "x", "bad key": "v", ok: 3 } }),
    );
    expect(problems.map((p) => p.field)).toEqual([
      `metadata.${BATCH_ID_METADATA}`,
      "metadata.bad key",
      "metadata.ok",
    ]);
  });

  it("refuses a key too long to travel as a metadata value", async () => {
    const problems = await problemsOf(line({ key: "k".repeat(1025) }));
    expect(problems.map((p) => p.field)).toEqual(["key"]);
  });
});

describe("a manifest is read as a stream", () => {
  it("checks 10,000 lines drawn one at a time from a generator", async () => {
    function* generated() {
      for (let index = 0; index < 10_000; index += 1)
        yield `${line({ key: `item-${index}`, submit: true })}\n`;
    }
    const check = await checkManifest(generated(), { format: "jsonl" });
    expect(check).toEqual({
      lines: 10_000,
      totals: { items: 10_000, files: 0, links: 0, submits: 10_000, evaluations: 0 },
      problems: [],
    });
  });

  it("yields a line before the source is read to its end", async () => {
    let pulled = 0;
    function* source() {
      for (let index = 0; index < 100; index += 1) {
        pulled += 1;
        yield `${line({ key: `item-${index}` })}\n`;
      }
    }
    for await (const entry of readManifest(source(), { format: "jsonl" })) {
      expect(entry.key).toBe("item-0");
      break;
    }
    expect(pulled).toBe(1);
  });

  it("stops between lines when its signal aborts, and refuses an unknown format", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      checkManifest([line({ key: "a" })], { format: "jsonl", signal: controller.signal }),
    ).rejects.toThrow("stop");
    await expect(checkManifest([""], { format: "xml" as ManifestFormat })).rejects.toThrow(RangeError);
  });

  it("counts files, links, submits and evaluations of the valid lines", async () => {
    const pdf = { fileFormat: "pdf", content: undefined };
    const text = [
      line({ key: "a", ...pdf, files: ["a.pdf", "b.pdf"], submit: true, evaluate: true }),
      line({
        key: "b",
        fileFormat: undefined,
        content: undefined,
        link: "https://example.com/p",
        evaluate: true,
      }),
      line({ key: "c", details: "d".repeat(1501), submit: true }),
    ].join("\n");
    const check = await checkManifest([text], { format: "jsonl" });
    expect(check.lines).toBe(3);
    expect(check.totals).toEqual({ items: 2, files: 2, links: 1, submits: 1, evaluations: 2 });
  });
});
