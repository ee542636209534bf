import type { OperationDeclaration } from "@promo-review/http";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { type GapChoice, jsonSchemaOf, openApiDocument, parseGaps } from "./index.js";

const GAPS: GapChoice[] = [17, 21, 22, 25, 7].map((row) => ({
  row,
  point: `point ${row}`,
  simulator: `choice ${row}`,
  client: `tolerance ${row}`,
}));

const declaration = (overrides: Partial<OperationDeclaration<unknown, unknown>> = {}) =>
  ({
    name: "things.get",
    method: "GET",
    path: "/v1/things/{thingId}",
    response: v.looseObject({ id: v.string() }),
    statuses: [200],
    resend: "safe",
    budget: "shared",
    ...overrides,
  }) as OperationDeclaration<never, never>;

describe("Schemas: valibot to JSON Schema 2020-12, with what it cannot say kept as text", () => {
  it("a custom plain-object check is an object, and a body's pipe is the object schema after it", () => {
    const plain = v.custom<object>((value) => typeof value === "object");
    expect(jsonSchemaOf(plain)).toEqual({ type: "object" });
    expect(jsonSchemaOf(v.pipe(plain, v.looseObject({ a: v.string() })))).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
    });
  });

  it("a check keeps its message, a raw check is named, a transform is dropped", () => {
    expect(
      jsonSchemaOf(
        v.pipe(
          v.string(),
          v.check((s) => s !== "x", "must not be x"),
        ),
      ),
    ).toEqual({
      type: "string",
      description: "check: must not be x",
    });
    expect(
      jsonSchemaOf(
        v.pipe(
          v.string(),
          v.rawCheck(() => undefined),
        ),
      ).description,
    ).toMatch(/rule across fields/);
    expect(
      jsonSchemaOf(
        v.pipe(
          v.array(v.string()),
          v.transform((a: string[]) => a),
          v.maxLength(2),
        ),
      ),
    ).toEqual({
      type: "array",
      items: { type: "string" },
      maxItems: 2,
    });
  });

  it("anything else it cannot describe stops the generation", () => {
    expect(() => jsonSchemaOf(v.date() as never)).toThrow();
    expect(() =>
      jsonSchemaOf(
        v.pipe(
          v.custom(() => true),
          v.string(),
          v.toUpperCase(),
        ),
      ),
    ).toThrow(/to_upper_case/);
  });
});

describe("The document: servers, security, errors and gaps as choices", () => {
  const files = {
    declaration: declaration({ name: "files.put", method: "PUT", path: "/v1/files/{fileId}" }),
    service: "files" as const,
    gaps: [7],
    bytes: { headers: [{ name: "Content-Range", description: "range", required: true }] },
  };
  const doc = openApiDocument({
    operations: [{ declaration: declaration(), service: "main", gaps: [] }, files],
    gaps: GAPS,
  }) as { paths: Record<string, Record<string, unknown>>; "x-promo-review-gaps": unknown[] };
  const operation = (path: string, method: string) =>
    doc.paths[path]![method] as { responses: Record<string, unknown> } & Record<string, unknown>;

  it("a file-service path names its own server and its two ways to authenticate", () => {
    expect(doc.paths["/v1/files/{fileId}"]!["servers"]).toEqual([
      expect.objectContaining({ url: "{files_url}" }),
    ]);
    const put = operation("/v1/files/{fileId}", "put");
    expect(put["security"]).toEqual([{ bearer: [], externalUserId: [] }, { bearer: [] }]);
    expect(put["requestBody"]).toMatchObject({ content: { "application/octet-stream": {} } });
  });

  it("a gap row is cited where it applies and explained once at the top", () => {
    const put = operation("/v1/files/{fileId}", "put");
    expect(put["x-promo-review-gap"]).toEqual([7]);
    expect(put["description"]).toMatch(/row 7 \(point 7\)/);
    expect(doc["x-promo-review-gaps"]).toContainEqual({
      row: 7,
      point: "point 7",
      choice: "choice 7",
      clientTolerance: "tolerance 7",
    });
  });

  it("a main-API operation answers 429, a file-service one does not; a path parameter adds 404", () => {
    const get = operation("/v1/things/{thingId}", "get");
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(["200", "404", "429"]));
    expect(Object.keys(operation("/v1/files/{fileId}", "put").responses)).not.toContain("429");
  });

  it("a row docs/gaps.md does not have, or two operations on one route, is an error", () => {
    expect(() =>
      openApiDocument({
        operations: [{ declaration: declaration(), service: "main", gaps: [99] }],
        gaps: GAPS,
      }),
    ).toThrow(/no row 99/);
    expect(() =>
      openApiDocument({
        operations: [
          { declaration: declaration(), service: "main", gaps: [] },
          { declaration: declaration({ name: "things.read" }), service: "main", gaps: [] },
        ],
        gaps: GAPS,
      }),
    ).toThrow(/two operations declare GET/);
  });
});

describe("docs/gaps.md's table is read as written", () => {
  it("reads each row's number, point, choice and tolerance, pipes in code kept", () => {
    const markdown = [
      "# Gaps",
      '## Every "not shown" point of the spec',
      "| # | Spec point | Simulator choice | Client tolerance |",
      "|---|---|---|---|",
      '| 18 | Payload | `"high"\\|"low"` and `a|b` | typed |',
      "## Next",
      "| 19 | not read | x | y |",
    ].join("\n");
    expect(parseGaps(markdown)).toEqual([
      { row: 18, point: "Payload", simulator: '`"high"|"low"` and `a|b`', client: "typed" },
    ]);
  });

  it("a missing section or an empty table is an error, never an empty list", () => {
    expect(() => parseGaps("# nothing")).toThrow(/has no section/);
    expect(() => parseGaps('## Every "not shown" point of the spec\n\ntext')).toThrow(/no rows/);
  });
});
