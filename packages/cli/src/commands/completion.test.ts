import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { run } from "../cli.js";
import { EXIT } from "../exit-codes.js";

async function script(shell: string): Promise<string> {
  const captured = captureIo();
  expect(await run(["completion", shell], captured.io)).toBe(EXIT.ok);
  expect(captured.stderr()).toBe("");
  return captured.stdout();
}

/** What bash offers after `words` (the last one being completed), with the script loaded. */
function bashCompletes(source: string, words: string[]): string[] {
  const line = `${source}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}
_promo_review
printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync("bash", ["--norc", "-c", line], { encoding: "utf8" }).split("\n").filter(Boolean);
}

describe("completion bash: generated from the commands and flags", () => {
  it("completes commands, each command's flags, nested subcommands, and skips option values", async () => {
    const source = await script("bash");
    expect(bashCompletes(source, ["promo-review", ""])).toEqual(
      expect.arrayContaining(["doctor", "upload", "target-markets", "products", "completion", "webhooks"]),
    );
    expect(bashCompletes(source, ["promo-review", "tar"])).toEqual(["target-markets"]);
    expect(bashCompletes(source, ["promo-review", "upload", "--ch"])).toEqual(["--chunk-size"]);
    // Global flags everywhere; a flag's value is not taken for a command.
    expect(bashCompletes(source, ["promo-review", "--api-key", "upload", "channels", "--js"])).toEqual([
      "--json",
    ]);
    expect(bashCompletes(source, ["promo-review", "--api-key", ""])).toEqual([]);
    expect(bashCompletes(source, ["promo-review", "webhooks", ""])).toEqual(
      expect.arrayContaining(["listen"]),
    );
    expect(bashCompletes(source, ["promo-review", "webhooks", "listen", "--co"])).toEqual(["--count"]);
    expect(bashCompletes(source, ["promo-review", "completion", ""])).toEqual(
      expect.arrayContaining(["--help"]),
    );
  });
});

describe("completion zsh and fish: every command and flag, in each shell's own form", () => {
  it("zsh: a #compdef function with descriptions", async () => {
    const source = await script("zsh");
    expect(source.startsWith("#compdef promo-review\n")).toBe(true);
    expect(source).toContain(
      "'target-markets:The target markets a promotion can address (create --target-market)'",
    );
    expect(source).toMatch(/"upload"\) subs=\(\); flags=\(--content-type --chunk-size --help /);
    expect(source).toContain('"webhooks listen") path="webhooks listen" ;;');
    expect(source).toContain("compdef _promo_review promo-review");
  });

  it("fish: complete lines per subcommand, and files for upload", async () => {
    const source = await script("fish");
    expect(source).toContain("complete -c promo-review -n '__fish_use_subcommand' -a doctor -d ");
    expect(source).toContain(
      "complete -c promo-review -n '__fish_seen_subcommand_from upload' -l chunk-size",
    );
    expect(source).toContain(
      "complete -c promo-review -n '__fish_seen_subcommand_from webhooks; and __fish_seen_subcommand_from listen' -l port",
    );
    expect(source).toContain("complete -c promo-review -n '__fish_seen_subcommand_from upload' -F");
  });

  it("refuses another shell (exit 2)", async () => {
    const captured = captureIo();
    expect(await run(["completion", "powershell"], captured.io)).toBe(EXIT.usage);
    expect(captured.stderr()).toContain("must be one of bash, zsh, fish");
  });
});
