import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureIo, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";
import { samplePdf } from "../sample-pdf.js";

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await testSimulator();
  dir = mkdtempSync(join(tmpdir(), "promo-review-cli-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(200 * 1024));
  writeFileSync(join(dir, "notes.unknownext"), "x");
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("upload <file>", () => {
  it("uploads in chunks with a progress bar on a terminal, and the service stores the same bytes", async () => {
    const captured = captureIo(simulatorEnv(sim), { tty: true });
    expect(await run(["upload", join(dir, "flyer.pdf"), "--chunk-size", "50000"], captured.io)).toBe(EXIT.ok);
    const uploadId = /upload:\s+(\S+)/.exec(captured.stdout())?.[1] as string;
    expect(captured.stdout()).toMatch(/status:\s+completed/);
    expect(captured.stderr()).toMatch(/flyer\.pdf \[#+\] 100%/);
    expect(sim.control.upload(uploadId).size).toBe(samplePdf(200 * 1024).length);
    const puts = sim.control.requests().filter((r) => r.method === "PUT" && r.path.endsWith(uploadId));
    expect(puts.length).toBeGreaterThan(3);
  });

  it("prints JSON with --json and draws no bar", async () => {
    const captured = captureIo(simulatorEnv(sim), { tty: true });
    expect(await run(["upload", join(dir, "flyer.pdf"), "--json"], captured.io)).toBe(EXIT.ok);
    expect(JSON.parse(captured.stdout())).toMatchObject({
      status: "completed",
      fileName: "flyer.pdf",
      contentType: "application/pdf",
    });
    expect(captured.stderr()).toBe("");
  });

  it("refuses a missing file with a clear message (exit 2), without a stack trace", async () => {
    const captured = captureIo(simulatorEnv(sim));
    const missing = join(dir, "nope.pdf");
    expect(await run(["upload", missing], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain(`promo-review: No such file: ${missing}`);
    expect(captured.stderr()).toContain(`field:          <file>: ${missing} does not exist`);
    expect(captured.stderr()).not.toMatch(/\n\s+at /);
  });

  it("shows the stack trace with --debug", async () => {
    const captured = captureIo(simulatorEnv(sim));
    expect(await run(["upload", join(dir, "nope.pdf"), "--debug"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toMatch(/UsageError: No such file[^\n]*\n\s+at /);
  });

  it("refuses a directory, and a file whose type it cannot tell without --content-type (exit 2)", async () => {
    const directory = captureIo(simulatorEnv(sim));
    expect(await run(["upload", dir], directory.io)).toBe(EXIT.usage);
    expect(directory.stderr()).toContain("is not a regular file");
    const unknown = captureIo(simulatorEnv(sim));
    expect(await run(["upload", join(dir, "notes.unknownext")], unknown.io)).toBe(EXIT.usage);
    expect(unknown.stderr()).toContain("--content-type: is required for a file without a known extension");
  });

  it("shows the service's refusal of a type it does not take: code, field, correlation id (exit 3)", async () => {
    const captured = captureIo(simulatorEnv(sim));
    const code = await run(
      ["upload", join(dir, "notes.unknownext"), "--content-type", "application/x-nope"],
      captured.io,
    );
    expect(code).toBe(EXIT.service);
    expect(captured.stderr()).toMatch(/code: {11}VALIDATION_ERROR \(HTTP 400\)/);
    expect(captured.stderr()).toContain(
      "field:          contentType: unsupported content type application/x-nope",
    );
    expect(captured.stderr()).toMatch(/correlation id: \S+/);
  });

  it("after Ctrl-C says where it stopped (exit 130), and the same command continues from there", async () => {
    writeFileSync(join(dir, "clip.mp4"), samplePdf(20 * 64 * 1024));
    const slow = sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "slow", delayMs: 20 });
    const first = captureIo(simulatorEnv(sim));
    const before = sim.control.requests().length;
    const running = run(["upload", join(dir, "clip.mp4"), "--json"], first.io);
    // Ctrl-C once the service holds part of the file.
    await new Promise<void>((resolve) => {
      const look = () => {
        const put = sim.control
          .requests()
          .slice(before)
          .find((r) => r.method === "PUT" && r.status === 200);
        if (put) resolve();
        else setTimeout(look, 5);
      };
      look();
    });
    first.stop();
    expect(await running).toBe(EXIT.interrupted);
    sim.control.removeFault(slow.faultId);
    const stopped =
      /Upload (\S+) stopped at byte (\d+) of (\d+); run the same command again to continue/.exec(
        first.stderr(),
      );
    expect(stopped, first.stderr()).not.toBeNull();
    const [, uploadId, at, size] = stopped!;

    const second = captureIo(simulatorEnv(sim));
    expect(await run(["upload", join(dir, "clip.mp4")], second.io)).toBe(EXIT.ok);
    expect(second.stderr()).toMatch(new RegExp(`Resuming upload ${uploadId} from byte \\d+ of ${size}`));
    expect(second.stdout()).toMatch(
      /resumed:\s+from byte \d+ of \d+ \(\d+%\), which the service already held/,
    );
    const from = Number(/Resuming upload \S+ from byte (\d+)/.exec(second.stderr())![1]);
    expect(from).toBeGreaterThanOrEqual(Number(at));
    expect(sim.control.upload(uploadId!).sha256).toBe(
      createHash("sha256")
        .update(samplePdf(20 * 64 * 1024))
        .digest("hex"),
    );
  });
});
