/**
 * The real command, spawned: built fresh from these sources (into .test-dist, so a stale dist/ can
 * never be what is tested), run with node, its exit code and output checked.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBinInto, collect } from "../test/support/built-bin.js";
import { createTextPromotion } from "../test/support/io.js";

const packageDir = join(import.meta.dirname, "..");
const outDir = join(packageDir, ".test-dist");
const bin = join(outDir, "bin.js");

function promoReview(args: string[], env: Record<string, string> = {}) {
  // Only what node needs from this environment: no PROMO_REVIEW_* of the shell running the tests.
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: packageDir,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { child, finished: collect(child) };
}

/** Resolves with what `stream` (stdout by default) printed once it contains `text`. */
function waitForOutput(
  child: ChildProcess,
  text: string,
  stream: "stdout" | "stderr" = "stdout",
): Promise<string> {
  let seen = "";
  return new Promise((resolve, reject) => {
    child[stream]?.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes(text)) resolve(seen);
    });
    child.once("close", () => reject(new Error(`exited before printing "${text}": ${seen}`)));
  });
}

beforeAll(() => {
  buildBinInto(outDir);
}, 120_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("the built promo-review bin", () => {
  it("runs the demo to the end as a process of its own (exit 0, every step ok)", async () => {
    const { finished } = promoReview(["demo"]);
    const { code, stdout, stderr } = await finished;
    expect(code).toBe(0);
    // Steps are progress (stderr, plain when piped); the summary is the result (stdout).
    expect(stderr).toContain("  ok  upload a sample PDF:");
    expect(stderr).toContain("  ok  read the decision: conditionally_approved");
    expect(stderr).toMatch(
      /ok {2}evaluate and receive the signed webhook: completed via webhook \(signature verified/,
    );
    expect(stderr).not.toContain("  !!  ");
    expect(stderr).not.toContain("\x1b[");
    expect(stdout).toContain("Summary");
    expect(stdout).not.toContain("  ok  ");
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
    // A notice, not a result: on stderr.
    await waitForOutput(child, "Listening for webhooks on http://127.0.0.1:", "stderr");
    child.kill("SIGINT");
    expect((await finished).code).toBe(0);
  });
});

describe("--json means JSON, from the real bin", () => {
  it.each([
    [["frobnicate", "--json"], "commander.unknownCommand", "unknown command 'frobnicate'"],
    [["channels", "--nope", "--json"], "commander.unknownOption", "unknown option '--nope'"],
    [["--json", "upload"], "commander.missingArgument", "missing required argument 'file'"],
  ])("%j: one JSON error on stderr, nothing on stdout, exit 2", async (args, code, message) => {
    const { finished } = promoReview(args);
    const result = await finished;
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const parsed = JSON.parse(result.stderr) as { error: Record<string, unknown> };
    expect(parsed.error).toMatchObject({ code: "USAGE", exitCode: 2 });
    expect(parsed.error["message"]).toContain(message);
    expect(parsed.error["fields"]).toEqual([{ field: code, message: expect.stringContaining(message) }]);
  });

  it("without --json the same mistake is text for people (exit 2)", async () => {
    const result = await promoReview(["frobnicate"]).finished;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown command 'frobnicate'");
    expect(() => JSON.parse(result.stderr)).toThrow();
  });
});

describe("upload: resumed by the same command after the process was killed", () => {
  let sim: Simulator;
  let work: string;
  beforeAll(async () => {
    sim = await startSimulator({ maxChunkSize: 64 * 1024, uploadProcessingDelayMs: 20 });
    work = mkdtempSync(join(tmpdir(), "promo-review-bin-"));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("continues from the service's acknowledged offset, says so, and the service holds the right SHA-256", async () => {
    const bytes = randomBytes(40 * 64 * 1024 + 999);
    const file = join(work, "clip.mp4");
    writeFileSync(file, bytes);
    const env = {
      PROMO_REVIEW_API_KEY: sim.apiKey,
      PROMO_REVIEW_BASE_URL: sim.baseUrl,
      PROMO_REVIEW_FILES_URL: sim.filesUrl,
      PROMO_REVIEW_USER_ID: sim.externalUserId,
      // The user's cache directory, as the XDG rule gives it.
      XDG_CACHE_HOME: join(work, "cache"),
    };
    const states = join(work, "cache", "promo-review", "uploads");
    // Slow chunks, so the first process is surely mid-file when it is killed.
    const slow = sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "slow", delayMs: 25 });
    const first = promoReview(["upload", file, "--json"], env);
    const uploadId = await new Promise<string>((resolve, reject) => {
      const look = () => {
        if (first.child.exitCode !== null) return reject(new Error("the upload ended before it was killed"));
        const [state] = existsSync(states) ? readdirSync(states).filter((n) => n.endsWith(".json")) : [];
        const id =
          state && (JSON.parse(readFileSync(join(states, state), "utf8")) as { uploadId: string }).uploadId;
        if (id && sim.control.upload(id).receivedBytes >= bytes.length / 2) resolve(id);
        else setTimeout(look, 10);
      };
      look();
    });
    process.kill(first.child.pid!, "SIGKILL");
    const killed = await first.finished;
    expect(killed.code).toBeNull();
    expect(killed.stdout).toBe("");
    sim.control.removeFault(slow.faultId);
    const held = sim.control.upload(uploadId).receivedBytes;
    expect(held).toBeLessThan(bytes.length);

    const second = await promoReview(["upload", file, "--json"], env).finished;
    expect(second.code).toBe(0);
    const result = JSON.parse(second.stdout) as { uploadId: string; resumedFrom: number; status: string };
    expect(result).toMatchObject({ uploadId, status: "completed" });
    // The chunk in flight at the kill may have landed after `held` was read: then one chunk further.
    expect([held, held + 64 * 1024]).toContain(result.resumedFrom);
    expect(second.stderr).toContain(
      `Resuming upload ${uploadId} from byte ${result.resumedFrom} of ${bytes.length}`,
    );
    expect(sim.control.upload(uploadId).sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    // Finished uploads are forgotten: nothing is left to resume.
    expect(readdirSync(states).filter((n) => n.endsWith(".json"))).toEqual([]);
  });
});

/**
 * Whether script(1) (util-linux) is here to give the bin a pseudo-terminal. Absent, the suite skips
 * loudly outside CI and fails under CI=true, like the suites that need redis-server.
 */
function scriptAvailable(): boolean {
  const found = (process.env["PATH"] ?? "").split(delimiter).some((dir) => existsSync(join(dir, "script")));
  if (found) return true;
  if (process.env["CI"] === "true")
    throw new Error("script(1) is not installed, and CI=true forbids skipping");
  console.warn("\n!!! the pseudo-terminal suite is SKIPPED: script(1) from util-linux is not on PATH.\n");
  return false;
}

describe.runIf(scriptAvailable())("at a terminal (a pseudo-terminal through script(1))", () => {
  let sim: Simulator;
  let work: string;
  beforeAll(async () => {
    // A processing delay long enough for the spinner to turn a few times.
    sim = await startSimulator({ maxChunkSize: 64 * 1024, uploadProcessingDelayMs: 600 });
    work = mkdtempSync(join(tmpdir(), "promo-review-pty-"));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs the bin in a pty: stdout and stderr are the terminal, as a person sees them. */
  function inTerminal(args: string[], extraEnv: Record<string, string> = {}) {
    const command = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: work,
      // A person's terminal: no CI variable (spinners stay off under CI), a colour-capable TERM.
      env: {
        PATH: process.env["PATH"] ?? "",
        TERM: "xterm-256color",
        PROMO_REVIEW_API_KEY: sim.apiKey,
        PROMO_REVIEW_BASE_URL: sim.baseUrl,
        PROMO_REVIEW_FILES_URL: sim.filesUrl,
        PROMO_REVIEW_USER_ID: sim.externalUserId,
        XDG_CACHE_HOME: join(work, "cache"),
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return collect(child);
  }

  it("draws the progress bar, then a spinner with the status while the service processes the file", async () => {
    const file = join(work, "flyer.pdf");
    writeFileSync(file, randomBytes(6 * 64 * 1024));
    const { code, stdout } = await inTerminal(["upload", file, "--chunk-size", "65536"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/flyer\.pdf \[#+-*\] \d+%/);
    expect(stdout).toMatch(/flyer\.pdf \[#+\] 100% \| 384\.0 KiB of 384\.0 KiB/);
    const frames = new Set(stdout.match(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g) ?? []);
    expect(frames.size).toBeGreaterThan(1);
    expect(stdout).toContain("flyer.pdf: all bytes stored; waiting for the file service to process it");
    expect(stdout).toMatch(/status:\s+completed/);
  });

  it("colours doctor's report, and not with NO_COLOR; a pipe gets none unless FORCE_COLOR", async () => {
    const coloured = await inTerminal(["doctor"]);
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain("\x1b[32m✔ ok  \x1b[39m  key: the main API accepted the key");
    const plain = await inTerminal(["doctor"], { NO_COLOR: "1" });
    expect(plain.stdout).toContain("✔ ok    key: the main API accepted the key");
    expect(plain.stdout).not.toContain("\x1b[3");
    const env = {
      PROMO_REVIEW_API_KEY: sim.apiKey,
      PROMO_REVIEW_BASE_URL: sim.baseUrl,
      PROMO_REVIEW_FILES_URL: sim.filesUrl,
      PROMO_REVIEW_USER_ID: sim.externalUserId,
    };
    const piped = await promoReview(["doctor"], env).finished;
    expect(piped.stdout).toContain("✔ ok    key:");
    expect(piped.stdout).not.toContain("\x1b[");
    const forced = await promoReview(["doctor"], { ...env, FORCE_COLOR: "1" }).finished;
    expect(forced.stdout).toContain("\x1b[32m✔ ok  \x1b[39m");
  });

  it("turns a spinner with the status while a link is imported and while `evaluate --wait` waits", async () => {
    // Long enough that the spinner shows a poll of an unfinished import even from a slow child process.
    sim.control.setDelays({ linkImportDelayMs: 2_500 });
    const capture = await inTerminal([
      "capture",
      "https://www.figma.com/design/AbC123/Spring",
      "--frame",
      "1:2",
    ]);
    expect(capture.code).toBe(0);
    // The frame is coloured: compare the text a person reads.
    expect(stripVTControlCharacters(capture.stdout)).toMatch(
      /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] importing https:\/\/www\.figma\.com\/design\/AbC123\/Spring: \w+ \(poll \d+/,
    );
    expect(capture.stdout).toMatch(/file format:\s+image/);

    const { promotionId } = await createTextPromotion(sim, "Spring offer: 2% cashback");
    const evaluate = await inTerminal(["evaluate", promotionId, "--wait"]);
    expect(evaluate.code).toBe(0);
    expect(stripVTControlCharacters(evaluate.stdout)).toMatch(
      new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] evaluating promotion ${promotionId}: polling for the result`),
    );
    expect(evaluate.stdout).toMatch(/received:\s+by polling/);
  });

  it("is silent but for the result under --json, even at a terminal", async () => {
    const file = join(work, "quiet.pdf");
    writeFileSync(file, randomBytes(3 * 64 * 1024));
    const { code, stdout } = await inTerminal(["upload", file, "--json"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain("[#");
    expect(stdout).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(JSON.parse(stdout.replace(/\r\n/g, "\n"))).toMatchObject({ status: "completed" });
  });
});
