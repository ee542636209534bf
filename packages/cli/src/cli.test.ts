import { describe, expect, it } from "vitest";
import { captureIo } from "../test/support/io.js";
import { run, VERSION } from "./cli.js";
import { EXIT } from "./exit-codes.js";

const COMMANDS = [
  ["demo"],
  ["upload"],
  ["capture"],
  ["create"],
  ["get"],
  ["version"],
  ["submit"],
  ["decision"],
  ["evaluate"],
  ["channels"],
  ["jurisdictions"],
  ["products"],
  ["target-markets"],
  ["doctor"],
  ["completion"],
  ["webhooks"],
  ["webhooks", "listen"],
  ["simulator"],
];

describe("--help: every command, with an example", () => {
  it.each(COMMANDS)("promo-review %s --help", async (...path) => {
    const captured = captureIo();
    expect(await run([...path, "--help"], captured.io)).toBe(EXIT.ok);
    const help = captured.stdout();
    expect(help).toContain(`Usage: promo-review ${path.join(" ")}`);
    expect(help).toMatch(new RegExp(`Example:\\n {2}\\$ [^\\n]*promo-review ${path.join(" ")}`));
    // The global settings are listed on every command's help where they apply: not on a server's,
    // nor on the completion script's.
    if (["simulator", "completion"].includes(path[0]!)) expect(help).not.toContain("--api-key");
    else expect(help).toContain("--api-key <key>");
  });

  it("the program's help lists every command, the settings' variables and the exit codes", async () => {
    const captured = captureIo();
    expect(await run(["--help"], captured.io)).toBe(EXIT.ok);
    for (const [name] of COMMANDS) expect(captured.stdout()).toMatch(new RegExp(`\\n {2}${name}\\b`));
    expect(captured.stdout()).toContain("PROMO_REVIEW_WEBHOOK_SECRET");
    expect(captured.stdout()).toContain("2 usage (nothing was sent), 3 the service");
  });
});

describe("usage errors: exit 2, with commander's message and a pointer to --help", () => {
  it.each([
    [["nope"], "unknown command 'nope'"],
    [["channels", "--nope"], "unknown option '--nope'"],
    [["upload"], "missing required argument 'file'"],
    [["channels", "extra"], "too many arguments"],
  ])("%j", async (argv, message) => {
    const captured = captureIo();
    expect(await run(argv, captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain(message);
    expect(captured.stderr()).toContain("(add --help for usage and an example)");
  });

  it("no command shows the help as an error (exit 2); --version prints the version (exit 0)", async () => {
    const none = captureIo();
    expect(await run([], none.io)).toBe(EXIT.usage);
    expect(none.stderr()).toContain("Usage: promo-review");
    const version = captureIo();
    expect(await run(["--version"], version.io)).toBe(EXIT.ok);
    expect(version.stdout().trim()).toBe(VERSION);
  });

  it("global options work after the subcommand as well as before it", async () => {
    const before = captureIo();
    expect(await run(["--json", "channels"], before.io)).toBe(EXIT.usage);
    const after = captureIo();
    expect(await run(["channels", "--json"], after.io)).toBe(EXIT.usage);
    expect(JSON.parse(before.stderr()).error.code).toBe("USAGE");
    expect(JSON.parse(after.stderr()).error.fields.map((f: { field: string }) => f.field)).toEqual([
      "--api-key",
      "--base-url",
      "--files-url",
      "--user-id",
    ]);
  });
});
