import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { parseCliArgs, runCli } from "./cli.js";

describe("Command: promo-review-simulator flags", () => {
  it("parses ports, window, seed and repeatable webhook URLs", () => {
    expect(
      parseCliArgs([
        "--main-port",
        "0",
        "--files-port",
        "0",
        "--window-ms",
        "1000",
        "--seed",
        "7",
        "--webhook-url",
        "http://a",
        "--webhook-url",
        "http://b",
      ]),
    ).toEqual({
      mainPort: 0,
      filesPort: 0,
      rateLimitWindowMs: 1000,
      seed: 7,
      webhookUrls: ["http://a", "http://b"],
    });
    expect(parseCliArgs([])).toEqual({});
    expect(parseCliArgs(["--help"])).toBe("help");
  });

  it("rejects bad values and unknown flags", () => {
    expect(() => parseCliArgs(["--main-port", "70000"])).toThrow(/--main-port/);
    expect(() => parseCliArgs(["--seed", "x"])).toThrow(/--seed/);
    expect(() => parseCliArgs(["--nope"])).toThrow();
  });
});

describe("Command: prints URLs, keys and the webhook secret as JSON; stops on SIGINT or SIGTERM", () => {
  it.each(["SIGINT", "SIGTERM"] as const)("starts, serves, and stops on %s", async (signal) => {
    const signals = new EventEmitter();
    let output = "";
    const { simulator, stopped } = await runCli(["--seed", "3", "--window-ms", "500"], {
      write: (text) => {
        output += text;
      },
      onSignal: (name, handler) => signals.once(name, handler),
    });
    const info = JSON.parse(output);
    expect(info).toMatchObject({
      baseUrl: simulator!.baseUrl,
      filesUrl: simulator!.filesUrl,
      apiKey: simulator!.apiKey,
      seed: 3,
    });
    expect(info.webhookSecret).toMatch(/^whsec_/);
    expect(info.keys.stagingKey).toBe(simulator!.keys.stagingKey);
    const res = await fetch(`${info.baseUrl}/v1/channels`, {
      headers: { Authorization: `Bearer ${info.apiKey}`, "X-External-User-ID": "cli" },
    });
    expect(res.status).toBe(200);
    signals.emit(signal);
    await stopped;
    await expect(fetch(`${info.baseUrl}/v1/channels`)).rejects.toThrow();
  });

  it("prints the usage for --help and starts nothing", async () => {
    let output = "";
    const { simulator, stopped } = await runCli(["--help"], {
      write: (t) => (output += t),
      onSignal: () => {},
    });
    await stopped;
    expect(simulator).toBeUndefined();
    expect(output).toMatch(/Usage: promo-review-simulator/);
  });
});

describe("Command: its logic is exported from the package, for other commands to embed", () => {
  it("runs from the package entry and stops when told", async () => {
    const fromPackage = await import("@promo-review/simulator");
    expect(fromPackage.runCli).toBe(runCli);
    expect(fromPackage.parseCliArgs).toBe(parseCliArgs);
    const signals = new EventEmitter();
    let output = "";
    const { simulator, stopped } = await fromPackage.runCli(["--seed", "5"], {
      write: (text) => (output += text),
      onSignal: (name, handler) => signals.once(name, handler),
    });
    expect(fromPackage.startupInfo(simulator!)).toEqual(JSON.parse(output));
    signals.emit("SIGTERM");
    await stopped;
  });
});
