import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Simulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { type Check, clockCheck, keyLooksLike, urlLooksLike, webhookSecretCheck } from "../doctor.js";
import { EXIT } from "../exit-codes.js";

let sim: Simulator;
let work: string;
beforeAll(async () => {
  sim = await testSimulator();
  work = mkdtempSync(join(tmpdir(), "promo-review-doctor-"));
});
afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs `doctor --json` with `env` (and options for the io); returns the exit code and the checks by id. */
async function doctor(
  env: Record<string, string | undefined>,
  args: string[] = [],
  io: { cwd?: string; now?: () => number } = {},
) {
  const captured = captureIo(env);
  const code = await run(["doctor", "--json", ...args], { ...captured.io, ...io });
  const report = JSON.parse(captured.stdout()) as { ok: boolean; exitCode: number; checks: Check[] };
  const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
  return { code, report, byId, stdout: captured.stdout(), stderr: captured.stderr() };
}

describe("doctor: settings, each with where it came from", () => {
  it("passes every check against the simulator with its production key, and never shows a secret", async () => {
    const { code, report, byId, stdout } = await doctor(simulatorEnv(sim));
    expect(code).toBe(EXIT.ok);
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.status === "fail" || c.status === "warn")).toEqual([]);
    expect(byId["setting.apiKey"]!.message).toMatch(
      /set \(\d+ characters, not shown\), from PROMO_REVIEW_API_KEY in the environment/,
    );
    expect(byId["setting.baseUrl"]!.message).toContain(sim.baseUrl);
    expect(byId["setting.externalUserEmail"]!.status).toBe("skip");
    expect(byId["files"]!.status).toBe("ok");
    expect(byId["webhook-secret"]!.status).toBe("ok");
    expect(byId["clock"]!.status).toBe("ok");
    expect(stdout).not.toContain(sim.apiKey);
    expect(stdout).not.toContain(sim.webhookSecret);
  });

  it("says flag > environment > file, and reads .env in the working directory or --env-file", async () => {
    const dir = mkdtempSync(join(work, "envfile-"));
    const { PROMO_REVIEW_BASE_URL: baseUrl, PROMO_REVIEW_FILES_URL: filesUrl, ...rest } = simulatorEnv(sim);
    writeFileSync(
      join(dir, ".env"),
      `# settings\nPROMO_REVIEW_BASE_URL=${baseUrl}\nPROMO_REVIEW_FILES_URL="${filesUrl}"\nPROMO_REVIEW_USER_ID=from-file\nOTHER=ignored\n`,
    );
    const { code, byId } = await doctor(rest, ["--user-id", "from-flag"], { cwd: dir });
    expect(code).toBe(EXIT.ok);
    expect(byId["setting.baseUrl"]!.message).toBe(
      `--base-url: ${baseUrl}, from PROMO_REVIEW_BASE_URL in ${join(dir, ".env")}`,
    );
    expect(byId["setting.filesUrl"]!.message).toContain(
      `from PROMO_REVIEW_FILES_URL in ${join(dir, ".env")}`,
    );
    expect(byId["setting.apiKey"]!.message).toContain("in the environment");
    expect(byId["setting.externalUserId"]!.message).toBe("--user-id: from-flag, from the --user-id flag");

    // The environment wins over the file; --env-file names another file.
    const other = join(dir, "staging.env");
    writeFileSync(
      other,
      `PROMO_REVIEW_USER_ID=from-other-file\nPROMO_REVIEW_BASE_URL=${baseUrl}\nPROMO_REVIEW_FILES_URL=${filesUrl}\n`,
    );
    const env = await doctor({ ...rest, PROMO_REVIEW_USER_ID: "from-env" }, ["--env-file", other], {
      cwd: dir,
    });
    expect(env.byId["setting.externalUserId"]!.message).toBe(
      "--user-id: from-env, from PROMO_REVIEW_USER_ID in the environment",
    );
    expect(env.byId["setting.baseUrl"]!.message).toContain(`in ${other}`);
  });

  it("refuses an --env-file that does not exist (exit 2), naming it", async () => {
    const captured = captureIo(simulatorEnv(sim));
    const missing = join(work, "nope.env");
    expect(await run(["channels", "--env-file", missing], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain(`--env-file: ${missing}: ENOENT`);
  });

  it("names each missing setting with what to do (exit 2), and skips what needs them", async () => {
    const { code, byId } = await doctor({}, [], { cwd: work });
    expect(code).toBe(EXIT.usage);
    expect(byId["setting.apiKey"]).toMatchObject({
      status: "fail",
      advice: "pass --api-key, set PROMO_REVIEW_API_KEY, or add PROMO_REVIEW_API_KEY=... to .env",
    });
    expect(byId["user-id"]!.status).toBe("fail");
    expect(byId["key"]!.status).toBe("skip");
    expect(byId["files"]!.status).toBe("skip");
  });

  it("names a URL with an unsupported scheme", async () => {
    const { code, byId } = await doctor({ ...simulatorEnv(sim), PROMO_REVIEW_BASE_URL: "ftp://x" });
    expect(code).toBe(EXIT.usage);
    expect(byId["setting.baseUrl"]).toMatchObject({
      status: "fail",
      message: expect.stringContaining("URL scheme ftp"),
    });
    expect(byId["key"]!.status).toBe("skip");
    expect(byId["files"]!.status).toBe("ok");
  });
});

describe("doctor: the key, against each of the simulator's keys", () => {
  it("a staging key against a production-looking URL says the two are not interchangeable (exit 3)", async () => {
    const { code, byId } = await doctor({ ...simulatorEnv(sim), PROMO_REVIEW_API_KEY: sim.keys.stagingKey });
    expect(code).toBe(EXIT.service);
    expect(byId["key"]).toMatchObject({ status: "fail", correlationId: expect.any(String) });
    expect(byId["key"]!.advice).toContain(
      `the key looks like a staging key but ${sim.baseUrl} looks like production`,
    );
    expect(byId["files"]!.status).toBe("fail");
  });

  it("a revoked key is rejected, with advice to make a new one", async () => {
    const { code, byId } = await doctor({ ...simulatorEnv(sim), PROMO_REVIEW_API_KEY: sim.keys.revokedKey });
    expect(code).toBe(EXIT.service);
    expect(byId["key"]!.message).toContain("refused the key (401 UNAUTHORIZED)");
    expect(byId["key"]!.advice).toContain("the key is invalid or revoked");
    expect(byId["act-on-behalf"]!.status).toBe("skip");
  });

  it("a key that authenticates but is not fully configured: contact support quoting the correlation id", async () => {
    const captured = captureIo({ ...simulatorEnv(sim), PROMO_REVIEW_API_KEY: sim.keys.unconfiguredKey });
    expect(await run(["doctor"], captured.io)).toBe(EXIT.service);
    const key = sim.control
      .requests()
      .filter((r) => r.path === "/v1/channels")
      .at(-1)!;
    expect(key.status).toBe(403);
    expect(captured.stdout()).toContain(
      "key: The key authenticates but is not fully configured for your organisation",
    );
    expect(captured.stdout()).toMatch(/→ contact support quoting correlation id [0-9a-f-]{36}/);
    const quoted = /correlation id ([0-9a-f-]{36})/.exec(captured.stdout())![1];
    expect(sim.control.requests().some((r) => r.correlationId === quoted)).toBe(true);
  });

  it("an act-on-behalf key without --user-email is warned before any write, and nothing is created", async () => {
    const env = { ...simulatorEnv(sim), PROMO_REVIEW_API_KEY: sim.keys.actOnBehalfKey };
    const { code, byId } = await doctor(env);
    expect(code).toBe(EXIT.ok);
    expect(byId["act-on-behalf"]).toMatchObject({
      status: "warn",
      advice: expect.stringContaining("pass --user-email or set PROMO_REVIEW_USER_EMAIL"),
    });
    const withEmail = await doctor(env, ["--user-email", "ann@example.com"]);
    expect(withEmail.byId["act-on-behalf"]).toMatchObject({ status: "ok" });
    // An ordinary key needs no email.
    expect((await doctor(simulatorEnv(sim))).byId["act-on-behalf"]!.status).toBe("ok");
    const created = sim.control.requests().filter((r) => r.method === "POST" && (r.status ?? 500) < 300);
    expect(created).toEqual([]);
  });

  it("reports an unreachable service as such (exit 4)", async () => {
    const { code, byId } = await doctor({
      ...simulatorEnv(sim),
      PROMO_REVIEW_BASE_URL: "http://127.0.0.1:9",
      PROMO_REVIEW_FILES_URL: "http://127.0.0.1:9",
    });
    expect(code).toBe(EXIT.network);
    expect(byId["key"]!.message).toContain("could not be reached");
    expect(byId["files"]!.message).toContain("could not be reached");
  });
});

describe("doctor: the webhook secret's format", () => {
  it("takes whsec_ and base64 (each of a rotation list), and names anything else", async () => {
    expect(webhookSecretCheck(undefined).status).toBe("skip");
    expect(webhookSecretCheck(sim.webhookSecret).status).toBe("ok");
    expect(webhookSecretCheck(`${sim.webhookSecret}, whsec_AAAA`).message).toContain("2 webhook secret(s)");
    for (const bad of ["MfKQ9r8GKYqrTwjU", "whsec_", "whsec_not base64!", "whsec_A", "sk_live_abc"]) {
      expect(webhookSecretCheck(bad).status).toBe("fail");
    }
    const { code, byId } = await doctor({ ...simulatorEnv(sim), PROMO_REVIEW_WEBHOOK_SECRET: "secret123" });
    expect(code).toBe(EXIT.usage);
    expect(byId["webhook-secret"]!.advice).toContain("starting with whsec_");
  });

  it("accepts every base64 body, whatever its bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
        expect(webhookSecretCheck(`whsec_${Buffer.from(bytes).toString("base64")}`).status).toBe("ok");
      }),
    );
  });
});

describe("doctor: the clock against the service's Date header", () => {
  it("is ok within a minute, warns past it, fails past the webhook tolerance", async () => {
    const ahead = (ms: number) => () => Date.now() + ms;
    expect((await doctor(simulatorEnv(sim), [], { now: ahead(0) })).byId["clock"]!.status).toBe("ok");
    const warned = await doctor(simulatorEnv(sim), [], { now: ahead(2 * 60_000) });
    expect(warned.code).toBe(EXIT.ok);
    expect(warned.byId["clock"]!.status).toBe("warn");
    expect(warned.byId["clock"]!.message).toMatch(/this clock is 1[12]\d\.\d s ahead of the service/);
    const failed = await doctor(simulatorEnv(sim), [], { now: ahead(-10 * 60_000) });
    expect(failed.code).toBe(EXIT.service);
    expect(failed.byId["clock"]!.message).toMatch(
      /behind the service: webhook timestamps are checked against it/,
    );
  });

  it("skips without a Date header, and reads skew from the header's whole seconds", () => {
    expect(clockCheck(null, 0, 0).status).toBe("skip");
    const date = new Date(1_700_000_000_000).toUTCString();
    expect(clockCheck(date, 1_700_000_000_400, 1_700_000_000_600).status).toBe("ok");
    expect(clockCheck(date, 1_700_000_300_500, 1_700_000_300_500).status).toBe("fail");
  });
});

describe("doctor: what a key and a URL look like", () => {
  it("tells staging from production keys and URLs by their usual words", () => {
    expect(keyLooksLike(sim.keys.stagingKey)).toBe("staging");
    expect(keyLooksLike(sim.apiKey)).toBe("production");
    expect(keyLooksLike("k3y")).toBeUndefined();
    expect(urlLooksLike("https://api.staging.example.com")).toBe("staging");
    expect(urlLooksLike("https://sandbox-api.example.com")).toBe("staging");
    expect(urlLooksLike("https://api.example.com")).toBe("production");
  });
});
