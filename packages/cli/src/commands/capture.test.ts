import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await testSimulator();
});
afterAll(() => sim.close());

describe("capture <url>", () => {
  it("captures a web page at once, and a design frame after its import", async () => {
    const page = captureIo(simulatorEnv(sim));
    expect(await run(["capture", "https://example.com/offer"], page.io)).toBe(EXIT.ok);
    expect(page.stdout()).toMatch(/upload:\s+[0-9a-f-]{36}/);
    expect(page.stdout()).toMatch(/file format:\s+image/);
    const design = captureIo(simulatorEnv(sim));
    expect(
      await run(
        ["capture", "https://www.figma.com/design/AbC123/Spring", "--frame", "1:2", "--json"],
        design.io,
      ),
    ).toBe(EXIT.ok);
    const captured = JSON.parse(design.stdout());
    expect(captured).toMatchObject({ fileFormat: "image" });
    expect(sim.control.upload(captured.uploadId).status).toBe("completed");
  });

  it("refuses a malformed URL (exit 2) and explains a private link's 403 (exit 3)", async () => {
    const bad = captureIo(simulatorEnv(sim));
    expect(await run(["capture", "not a url"], bad.io)).toBe(EXIT.usage);
    expect(bad.stderr()).toMatch(/field: {10}url:/);
    const forbidden = captureIo(simulatorEnv(sim));
    expect(await run(["capture", "https://drive.google.com/private/file.pdf"], forbidden.io)).toBe(
      EXIT.service,
    );
    expect(forbidden.stderr()).toMatch(/code: {11}FORBIDDEN \(HTTP 403\)/);
    expect(forbidden.stderr()).toMatch(/correlation id: \S+/);
  });
});
