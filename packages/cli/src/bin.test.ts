/**
 * The real command, spawned: built fresh from these sources (into .test-dist, so a stale dist/ can
 * never be what is tested), run with node, its exit code and output checked.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageDir = join(import.meta.dirname, "..");
const outDir = join(packageDir, ".test-dist");
const bin = join(outDir, "bin.js");

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function promoReview(args: string[], env: Record<string, string> = {}) {
  // Only what node needs from this environment: no PROMO_REVIEW_* of the shell running the tests.
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: packageDir,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { child, finished: collect(child) };
}

/** Resolves with stdout once it contains `text`. */
function waitForOutput(child: ChildProcess, text: string): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes(text)) resolve(seen);
    });
    child.once("close", () => reject(new Error(`exited before printing "${text}": ${seen}`)));
  });
}

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      join(packageDir, "../../node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      outDir,
      "--declaration",
      "false",
      "--declarationMap",
      "false",
      "--sourceMap",
      "false",
    ],
    {
      cwd: packageDir,
      stdio: "inherit",
    },
  );
}, 120_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("the built promo-review bin", () => {
  it("runs the demo to the end as a process of its own (exit 0, every step ok)", async () => {
    const { finished } = promoReview(["demo"]);
    const { code, stdout, stderr } = await finished;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("  ok  upload a sample PDF:");
    expect(stdout).toContain("  ok  read the decision: conditionally_approved");
    expect(stdout).toMatch(
      /ok {2}evaluate and receive the signed webhook: completed via webhook \(signature verified/,
    );
    expect(stdout).toContain("Summary");
    expect(stdout).not.toContain("  !!  ");
  });

  it("prints help with an example (exit 0) and refuses an unknown flag (exit 2)", async () => {
    const help = await promoReview(["--help"]).finished;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Example:");
    const bad = await promoReview(["channels", "--nope"]).finished;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error: unknown option '--nope'");
  });

  it("names the missing settings (exit 2) without a stack trace", async () => {
    const { code, stderr } = await promoReview(["channels"]).finished;
    expect(code).toBe(2);
    expect(stderr).toContain("PROMO_REVIEW_API_KEY");
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("serves the simulator until SIGTERM, then exits 0", async () => {
    const { child, finished } = promoReview(["simulator", "--json"]);
    const printed = await waitForOutput(child, "}\n");
    const info = JSON.parse(printed) as { baseUrl: string; apiKey: string; externalUserId: string };
    const answer = await fetch(`${info.baseUrl}/v1/channels`, {
      headers: { Authorization: `Bearer ${info.apiKey}`, "X-External-User-ID": info.externalUserId },
    });
    expect(answer.status).toBe(200);
    child.kill("SIGTERM");
    expect((await finished).code).toBe(0);
  });

  it("stops `webhooks listen` on SIGINT and exits 0", async () => {
    const { child, finished } = promoReview(["webhooks", "listen", "--port", "0"], {
      PROMO_REVIEW_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    await waitForOutput(child, "Listening for webhooks on http://127.0.0.1:");
    child.kill("SIGINT");
    expect((await finished).code).toBe(0);
  });
});
