import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SDK_VERSION } from "./version.js";

describe("SDK_VERSION (named in the User-Agent)", () => {
  it("is the version of the published package (changeset version bumps package.json; this keeps the two together)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(SDK_VERSION).toBe(manifest.version);
  });
});
