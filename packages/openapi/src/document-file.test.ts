import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { DOCUMENT_PATH } from "../test/support/described.js";
import { describedOperations, promoReviewDocument, renderDocument } from "./index.js";

const gapsMarkdown = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "gaps.md"), "utf8");
const committed = readFileSync(DOCUMENT_PATH, "utf8");

describe("The committed document is what the declarations generate (no drift)", () => {
  it("equals a fresh generation byte for byte (run `pnpm --filter @promo-review/openapi generate` after a change)", () => {
    expect(committed).toBe(renderDocument(promoReviewDocument(gapsMarkdown)));
  });

  it("holds one operation per declaration, named as the client names it", () => {
    const document = JSON.parse(committed) as { paths: Record<string, Record<string, { summary?: string }>> };
    const summaries = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation.summary ? [operation.summary] : [])),
    );
    expect(summaries.sort()).toEqual(describedOperations.map((o) => o.declaration.name).sort());
  });
});

describe("A real OpenAPI validator accepts the document", () => {
  it("@seriousme/openapi-schema-validator finds it valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committed));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("the same validator refuses a document that breaks the OpenAPI schema (the check can fail)", async () => {
    const broken = JSON.parse(committed) as { paths: Record<string, Record<string, { responses: unknown }>> };
    broken.paths["/v1/channels"]!["get"]!.responses = { "200": { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
