/** `promo-review completion bash|zsh|fish`: prints the shell's completion script. */
import { type Command, InvalidArgumentError } from "commander";
import { completionScript, SHELLS, type Shell } from "../completion-scripts.js";
import { example } from "../context.js";
import type { CliIo } from "../io.js";

/** Adds `completion`. */
export function registerCompletion(program: Command, io: CliIo): void {
  program
    .command("completion")
    .description("Print the shell completion script for bash, zsh or fish.")
    // No setting applies to printing a script.
    .configureHelp({ showGlobalOptions: false })
    .argument("<shell>", `one of ${SHELLS.join(", ")}`, (value: string) => {
      if (!(SHELLS as readonly string[]).includes(value)) {
        throw new InvalidArgumentError(`must be one of ${SHELLS.join(", ")}.`);
      }
      return value as Shell;
    })
    .addHelpText(
      "after",
      example(
        "$ source <(promo-review completion bash)",
        "$ promo-review completion zsh > ~/.zfunc/_promo-review",
        "$ promo-review completion fish > ~/.config/fish/completions/promo-review.fish",
      ),
    )
    .action((shell: Shell) => {
      // The script is the result, whatever --json says: it is meant to be sourced.
      io.stdout.write(completionScript(program, shell));
    });
}
