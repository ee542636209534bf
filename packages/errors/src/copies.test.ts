import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Two installed copies of the package, as when a bundled dependency ships its own: each is a separate
// module instance with its own classes.
const root = join(import.meta.dirname, "..", ".copies");
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function installCopy(name: string): Promise<typeof import("./index.js")> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  cpSync(import.meta.dirname, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") });
  return import(pathToFileURL(join(dir, "index.ts")).href);
}

describe("instanceof works across two installed copies", () => {
  it("an error from one copy is an instance of the other copy's classes", async () => {
    const a = await installCopy("a");
    const b = await installCopy("b");
    expect(a.ValidationError).not.toBe(b.ValidationError);
    const error = new a.UploadNotReadyError({ code: "CONFLICT", message: "not ready", status: 409 });
    expect(error instanceof b.UploadNotReadyError).toBe(true);
    expect(error instanceof b.ConflictError).toBe(true);
    expect(error instanceof b.PromoReviewError).toBe(true);
    expect(error instanceof b.RateLimitError).toBe(false);
    expect(b.isPromoReviewError(error)).toBe(true);
    expect(b.isPromoReviewError(new Error("plain"))).toBe(false);
    expect(b.isPromoReviewError(null)).toBe(false);
  });
});
