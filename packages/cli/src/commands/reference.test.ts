import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";
import { captureIo, simulatorEnv, testSimulator } from "../test-io.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await testSimulator();
});
afterAll(() => sim.close());

describe("channels, jurisdictions, products: the reference lists", () => {
  it.each([
    ["channels", () => sim.reference.channels],
    ["jurisdictions", () => sim.reference.jurisdictions],
    ["products", () => sim.reference.products],
  ] as const)("%s prints a table of ids and names, and JSON with --json", async (name, expected) => {
    const human = captureIo(simulatorEnv(sim));
    expect(await run([name], human.io)).toBe(EXIT.ok);
    const lines = human.stdout().trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME$/);
    for (const item of expected()) expect(human.stdout()).toMatch(new RegExp(`${item.id}\\s+${item.name}`));

    const json = captureIo(simulatorEnv(sim));
    expect(await run([name, "--json"], json.io)).toBe(EXIT.ok);
    const parsed = JSON.parse(json.stdout());
    expect(parsed[name]).toEqual(expected());
    expect(parsed.correlationId).toEqual(expect.any(String));
  });

  it("takes the settings from flags as well as from the environment", async () => {
    const captured = captureIo();
    const code = await run(
      [
        "channels",
        "--api-key",
        sim.apiKey,
        "--base-url",
        sim.baseUrl,
        "--files-url",
        sim.filesUrl,
        "--user-id",
        sim.externalUserId,
      ],
      captured.io,
    );
    expect(code).toBe(EXIT.ok);
    expect(captured.stdout()).toContain(sim.reference.channels[0]!.id);
  });

  it("shows the service's refusal of a revoked key: code, status and correlation id (exit 3)", async () => {
    const captured = captureIo({ ...simulatorEnv(sim), PROMO_REVIEW_API_KEY: sim.keys.revokedKey });
    expect(await run(["jurisdictions"], captured.io)).toBe(EXIT.service);
    expect(captured.stderr()).toMatch(/code: {11}UNAUTHORIZED \(HTTP 401\)/);
    const correlationId = /correlation id: (\S+)/.exec(captured.stderr())?.[1];
    expect(sim.control.requests().some((r) => r.correlationId === correlationId)).toBe(true);
  });

  it("reports an unreachable service as a network error (exit 4), with the JSON error on stderr", async () => {
    const captured = captureIo({
      ...simulatorEnv(sim),
      // A port nothing listens on: the connection is refused at once.
      PROMO_REVIEW_BASE_URL: "http://127.0.0.1:9",
    });
    expect(await run(["channels", "--json"], captured.io)).toBe(EXIT.network);
    expect(captured.stdout()).toBe("");
    const { error } = JSON.parse(captured.stderr());
    expect(error).toMatchObject({ code: "NETWORK_ERROR", exitCode: EXIT.network });
  });

  it("refuses a malformed base URL before sending anything (exit 2)", async () => {
    const captured = captureIo({ ...simulatorEnv(sim), PROMO_REVIEW_BASE_URL: "not-a-url" });
    expect(await run(["channels"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain("field:          baseUrl: must be an http(s) URL");
    // Not repeated: a key pasted in the wrong setting would be printed otherwise.
    expect(captured.stderr()).not.toContain("not-a-url");
  });
});
