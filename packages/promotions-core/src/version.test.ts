import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROMOTIONS_CORE_VERSION } from "./version.js";

describe("PROMOTIONS_CORE_VERSION (the instrumentation scope's version)", () => {
  it("is the version of the published package (changeset version bumps package.json; this keeps the two together)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(PROMOTIONS_CORE_VERSION).toBe(manifest.version);
  });
});
