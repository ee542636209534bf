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

describe("channels, jurisdictions, products, target-markets: the reference lists", () => {
  it.each([
    ["channels", "channels", () => sim.reference.channels],
    ["jurisdictions", "jurisdictions", () => sim.reference.jurisdictions],
    ["products", "products", () => sim.reference.products],
    ["target-markets", "targetMarkets", () => sim.reference.targetMarkets],
  ] as const)("%s prints a table of ids and names, and JSON with --json", async (name, key, expected) => {
    const human = captureIo(simulatorEnv(sim));
    expect(await run([name], human.io)).toBe(EXIT.ok);
    const lines = human.stdout().trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME$/);
    for (const item of expected()) expect(human.stdout()).toMatch(new RegExp(`${item.id}\\s+${item.name}`));

    const json = captureIo(simulatorEnv(sim));
    expect(await run([name, "--json"], json.io)).toBe(EXIT.ok);
    const parsed = JSON.parse(json.stdout());
    expect(expected().length).toBeGreaterThan(0);
    expect(parsed[key]).toEqual(expected());
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
    expect(captured.stderr()).toContain("field:          --base-url (PROMO_REVIEW_BASE_URL): is not a URL");
    // Not repeated: a key pasted in the wrong setting would be printed otherwise.
    expect(captured.stderr()).not.toContain("not-a-url");
    expect(captured.stderr()).not.toContain("incomplete");
  });

  it("names an unsupported URL scheme as such, not as incomplete settings (exit 2)", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["channels", "--base-url", "ftp://x"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain("promo-review: Invalid service URL");
    expect(captured.stderr()).toContain(
      "--base-url (PROMO_REVIEW_BASE_URL): the URL scheme ftp is not supported: use https://",
    );
    expect(captured.stderr()).not.toContain("incomplete");
    const before = sim.control.requests().length;
    expect(await run(["channels", "--base-url", "ftp://x"], captureIo(simulatorEnv(sim)).io)).toBe(
      EXIT.usage,
    );
    expect(sim.control.requests().length).toBe(before);
  });
});
