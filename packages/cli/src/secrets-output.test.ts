import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useEchoingService } from "../../../testing/echoing-service.ts";
import { captureIo } from "../test/support/io.js";
import { run } from "./cli.js";
import { EXIT } from "./exit-codes.js";
import { configuredSecrets, createOutput } from "./output.js";

const echo = useEchoingService();
const UUID = "0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b";
const folder = mkdtempSync(join(tmpdir(), "promo-review-secrets-"));
const pdf = join(folder, "flyer.pdf");
writeFileSync(pdf, "%PDF-1.4 a tiny file");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const MODES = [[], ["--json"], ["--debug"], ["--json", "--debug"]];
const FAILING = [["get", UUID], ["jurisdictions"], ["capture", "https://example.test/page"], ["upload", pdf]];

/** Runs the command against the echoing service, the key given by flag or by environment. */
async function runEchoed(key: string, args: string[], how: "flag" | "env") {
  const env = {
    PROMO_REVIEW_BASE_URL: echo(),
    PROMO_REVIEW_FILES_URL: `${echo()}/files`,
    PROMO_REVIEW_USER_ID: "u1",
    ...(how === "env" ? { PROMO_REVIEW_API_KEY: key } : {}),
  };
  const captured = captureIo(env);
  const code = await run([...args, ...(how === "flag" ? ["--api-key", key] : [])], captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

describe("the CLI prints no secret in any mode, whatever the service echoes", () => {
  const keys: [string, "flag" | "env"][] = [
    ["pr_live_CliEchoedKey_abcdef0123456789", "flag"],
    ["Zq", "env"],
    ["§", "flag"],
  ];
  for (const [key, how] of keys) {
    it(`a ${key.length}-character key by ${how}: errors in human, --json and --debug modes`, async () => {
      for (const mode of MODES) {
        for (const command of FAILING) {
          const { code, stdout, stderr } = await runEchoed(key, [...command, ...mode], how);
          const what = `${[...command, ...mode].join(" ")}`;
          // The service's answer was printed (its correlation id line or field), without the key.
          expect(code, what).toBe(EXIT.service);
          expect(stderr, what).toContain(mode.includes("--json") ? '"correlationId"' : "correlation id:");
          if (mode.includes("--debug")) expect(stderr, what).toMatch(/\n\s+at /);
          expect(`${stdout}${stderr}`, what).not.toContain(key);
        }
      }
    });

    it(`a ${key.length}-character key by ${how}: a result that echoes it`, async () => {
      for (const mode of [[], ["--json"]]) {
        const { code, stdout, stderr } = await runEchoed(key, ["channels", ...mode], how);
        expect(code).toBe(EXIT.ok);
        expect(stdout).toContain("Channel [REDACTED]");
        expect(`${stdout}${stderr}`).not.toContain(key);
        if (mode.includes("--json")) expect(() => JSON.parse(stdout)).not.toThrow();
      }
    });
  }
});

describe("the printer removes configured secrets from failures that are not the SDK's", () => {
  it("a plain error echoing the key and a webhook secret, in human, --json and --debug modes", () => {
    const key = "pr_live_PlainErrorKey_42";
    const secret = "whsec_PlainErrorSecret0123";
    const secrets = configuredSecrets({ apiKey: key }, { PROMO_REVIEW_WEBHOOK_SECRET: ` other, ${secret}` });
    expect(secrets).toContain(secret);
    for (const options of [
      { json: false, debug: false },
      { json: true, debug: false },
      { json: false, debug: true },
    ]) {
      const captured = captureIo();
      const code = createOutput(captured.io, { ...options, secrets }).failure(
        new TypeError(`boom ${key} ${secret} "quoted"`),
      );
      expect(code).toBe(EXIT.unexpected);
      expect(captured.stderr()).toContain("boom");
      expect(captured.stderr()).not.toContain(key);
      expect(captured.stderr()).not.toContain(secret);
    }
  });
});
