import { describe, expect, it } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

describe("simulator: serves until stopped", () => {
  it("prints the URLs and the settings to export, serves, and stops when told", async () => {
    const captured = captureIo();
    const running = run(["simulator", "--seed", "7", "--window-ms", "1000"], captured.io);
    while (!captured.stdout().includes("PROMO_REVIEW_WEBHOOK_SECRET"))
      await new Promise((r) => setTimeout(r, 10));
    const baseUrl = /export PROMO_REVIEW_BASE_URL=(\S+)/.exec(captured.stdout())?.[1] as string;
    const apiKey = /export PROMO_REVIEW_API_KEY=(\S+)/.exec(captured.stdout())?.[1] as string;
    expect(captured.stdout()).toMatch(/seed:\s+7/);
    // The printed settings are enough for the command itself.
    const channels = captureIo({
      PROMO_REVIEW_BASE_URL: baseUrl,
      PROMO_REVIEW_API_KEY: apiKey,
      PROMO_REVIEW_FILES_URL: /export PROMO_REVIEW_FILES_URL=(\S+)/.exec(captured.stdout())?.[1],
      PROMO_REVIEW_USER_ID: /export PROMO_REVIEW_USER_ID=(\S+)/.exec(captured.stdout())?.[1],
    });
    expect(await run(["channels"], channels.io)).toBe(EXIT.ok);
    captured.stop();
    expect(await running).toBe(EXIT.ok);
    await expect(fetch(`${baseUrl}/v1/channels`)).rejects.toThrow();
  });

  it("prints JSON with --json and passes the ports and webhook URLs on", async () => {
    const captured = captureIo();
    const running = run(
      [
        "simulator",
        "--json",
        "--main-port",
        "0",
        "--files-port",
        "0",
        "--webhook-url",
        "http://127.0.0.1:9/hooks",
      ],
      captured.io,
    );
    while (!captured.stdout().trim().endsWith("}")) await new Promise((r) => setTimeout(r, 10));
    const info = JSON.parse(captured.stdout());
    expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.webhookSecret).toMatch(/^whsec_/);
    const endpoints = await fetch(`${info.baseUrl}/_sim/webhooks/endpoints`).then((r) => r.json());
    expect(JSON.stringify(endpoints)).toContain("http://127.0.0.1:9/hooks");
    captured.stop();
    expect(await running).toBe(EXIT.ok);
  });

  it("refuses a bad port (exit 2)", async () => {
    const captured = captureIo();
    expect(await run(["simulator", "--main-port", "x"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain("must be an integer from 0 to 65535");
  });

  it("--help lists only the flags that apply to a server", async () => {
    const captured = captureIo();
    expect(await run(["simulator", "--help"], captured.io)).toBe(EXIT.ok);
    const help = captured.stdout();
    expect(help).toContain("--main-port <port>");
    expect(help).toContain("--webhook-url <url>");
    expect(help).toContain("Global option that applies: --json");
    for (const flag of [
      "--api-key",
      "--base-url",
      "--files-url",
      "--user-id",
      "--user-email",
      "--env-file",
    ]) {
      expect(help).not.toContain(flag);
    }
    // Other commands still list the global settings.
    const upload = captureIo();
    expect(await run(["upload", "--help"], upload.io)).toBe(EXIT.ok);
    expect(upload.stdout()).toContain("--api-key <key>");
  });
});
