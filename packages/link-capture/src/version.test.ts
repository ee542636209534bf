import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LINK_CAPTURE_VERSION } from "./version.js";

describe("LINK_CAPTURE_VERSION (the instrumentation scope's version)", () => {
  it("is the version of the published package (changeset version bumps package.json; this keeps the two together)", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(LINK_CAPTURE_VERSION).toBe(manifest.version);
  });
});
