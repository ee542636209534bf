/**
 * Shell completion scripts, generated from the program itself (its commands, subcommands and
 * options), so a new command or flag completes without anyone editing a script by hand.
 */
import type { Command, Option } from "commander";

/** The shells `promo-review completion` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** One of {@link SHELLS}. */
export type Shell = (typeof SHELLS)[number];

/** A command as completion sees it: its path (`webhooks listen`), flags and subcommands. */
interface Entry {
  path: string;
  description: string;
  flags: string[];
  subcommands: { name: string; description: string }[];
}

const visible = (options: readonly Option[]) => options.filter((option) => !option.hidden && option.long);

/** The first sentence of a description: what fits on a completion menu's line. */
function summary(text: string): string {
  const first = /^(.*?[.:;])(\s|$)/.exec(text)?.[1] ?? text;
  return first.replace(/[.:;]$/, "");
}

function entries(command: Command, path: string): Entry[] {
  const subcommands = command.commands.filter((sub) => sub.name() !== "help");
  const own: Entry = {
    path,
    description: summary(command.description()),
    flags: [...visible(command.options).map((option) => option.long!), "--help"],
    subcommands: subcommands.map((sub) => ({ name: sub.name(), description: summary(sub.description()) })),
  };
  return [own, ...subcommands.flatMap((sub) => entries(sub, path ? `${path} ${sub.name()}` : sub.name()))];
}

/** The long flags of `program` and its commands that take a value (their next word is not a command). */
function valueFlags(program: Command): string[] {
  const all = (command: Command): Option[] => [...command.options, ...command.commands.flatMap(all)];
  return [
    ...new Set(
      all(program)
        .filter((option) => option.required || option.optional)
        .map((o) => o.long!),
    ),
  ];
}

/**
 * The part bash and zsh share: walk the words typed before the cursor, skip flags (and the value of
 * a flag that takes one), and find the (sub)command path they name. Only the names of the shell's
 * word array, its first index and the cursor differ.
 */
function walkWords(list: Entry[], first: string, cursor: string, words: string): string {
  return `  for ((i = ${first}; i < ${cursor}; i++)); do
    word="\${${words}[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    if [[ "$word" == -* ]]; then
      [[ "$valued" == *" $word "* ]] && skip=1
      continue
    fi
    case "\${path:+$path }$word" in
${list
  .slice(1)
  .map((entry) => `      "${entry.path}") path="${entry.path}" ;;`)
  .join("\n")}
    esac
  done
`;
}

function bash(program: Command): string {
  const list = entries(program, "");
  const globals = list[0]!.flags.join(" ");
  const cases = list
    .map((entry) => {
      const words = [...entry.subcommands.map((sub) => sub.name), ...entry.flags];
      if (entry.path !== "") words.push(globals);
      return `    "${entry.path}") words="${words.join(" ")}" ;;`;
    })
    .join("\n");
  return `# promo-review completion for bash. Load it with:
#   source <(promo-review completion bash)
# or save it as ~/.local/share/bash-completion/completions/promo-review
_promo_review() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="" word i skip=""
  local valued=" ${valueFlags(program).join(" ")} "
  if [[ "$valued" == *" $prev "* ]]; then return 0; fi
${walkWords(list, "1", "COMP_CWORD", "COMP_WORDS")}  local words=""
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _promo_review promo-review
`;
}

function zsh(program: Command): string {
  const list = entries(program, "");
  const globals = list[0]!.flags.join(" ");
  const quote = (text: string) => text.replace(/[\\':]/g, (c) => (c === "'" ? "'\\''" : `\\${c}`));
  const cases = list
    .map((entry) => {
      const subs = entry.subcommands.map((sub) => `'${quote(sub.name)}:${quote(sub.description)}'`).join(" ");
      const flags = [...entry.flags, ...(entry.path !== "" ? [globals] : [])].join(" ");
      return `    "${entry.path}") subs=(${subs}); flags=(${flags}) ;;`;
    })
    .join("\n");
  return `#compdef promo-review
# promo-review completion for zsh. Load it with:
#   source <(promo-review completion zsh)
# or save it as _promo-review in a directory of your $fpath
_promo_review() {
  local path="" word i skip=""
  local valued=" ${valueFlags(program).join(" ")} "
  local -a subs flags
  if [[ "$valued" == *" \${words[CURRENT-1]} "* ]]; then _files; return; fi
${walkWords(list, "2", "CURRENT", "words")}  case "$path" in
${cases}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then compadd -- \${flags[@]}
  elif (( \${#subs} )); then _describe 'command' subs
  else _files
  fi
}
compdef _promo_review promo-review
`;
}

function fish(program: Command): string {
  const list = entries(program, "");
  const quote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const lines = [
    "# promo-review completion for fish. Load it with:",
    "#   promo-review completion fish | source",
    "# or save it as ~/.config/fish/completions/promo-review.fish",
    "complete -c promo-review -f",
  ];
  const top = list[0]!;
  for (const flag of top.flags) lines.push(`complete -c promo-review -l ${flag.slice(2)}`);
  for (const entry of list) {
    const condition =
      entry.path === ""
        ? "__fish_use_subcommand"
        : entry.path
            .split(" ")
            .map((word) => `__fish_seen_subcommand_from ${word}`)
            .join("; and ");
    for (const sub of entry.subcommands) {
      lines.push(
        `complete -c promo-review -n ${quote(condition)} -a ${sub.name} -d ${quote(sub.description)}`,
      );
    }
    if (entry.path === "") continue;
    for (const flag of entry.flags) {
      lines.push(`complete -c promo-review -n ${quote(condition)} -l ${flag.slice(2)}`);
    }
    if (entry.path === "upload") lines.push(`complete -c promo-review -n ${quote(condition)} -F`);
  }
  return `${lines.join("\n")}\n`;
}

/** The completion script for `shell`, for the commands and flags of `program`. */
export function completionScript(program: Command, shell: Shell): string {
  if (shell === "bash") return bash(program);
  if (shell === "zsh") return zsh(program);
  return fish(program);
}
