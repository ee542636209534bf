import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "./cli.js";

describe("promo-review --version", () => {
  it("is the version of the published package (changeset version bumps package.json; this keeps the two together)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(VERSION).toBe(manifest.version);
  });
});
