/** Reference data: `channels`, `jurisdictions`, `products` and `target-markets`, the ids `create` needs. */
import type { Command } from "commander";
import { contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { table } from "../output.js";

/** Each list: its command, the client's method (and the JSON key of its items), and what it holds. */
const LISTS = [
  { command: "channels", key: "channels", what: "The channels a promotion can run on" },
  {
    command: "jurisdictions",
    key: "jurisdictions",
    what: "The jurisdictions a promotion can be reviewed for",
  },
  { command: "products", key: "products", what: "The products a promotion can promote" },
  {
    command: "target-markets",
    key: "targetMarkets",
    what: "The target markets a promotion can address (create --target-market)",
  },
] as const;

/** Adds `channels`, `jurisdictions`, `products` and `target-markets`. */
export function registerReference(program: Command, io: CliIo): void {
  for (const list of LISTS) {
    program
      .command(list.command)
      .description(`${list.what}: id and name.`)
      .addHelpText(
        "after",
        example(`$ promo-review ${list.command}`, `$ promo-review ${list.command} --json`),
      )
      .action(async (_options: unknown, command: Command) => {
        const ctx = contextOf(command, io);
        const reference = ctx.client().reference;
        const answer = await reference[list.key](ctx.signal);
        const items = (answer as unknown as Record<string, { id: string; name?: string }[]>)[list.key] ?? [];
        ctx.out.result({ [list.key]: items, correlationId: answer.correlationId }, () =>
          table([["ID", "NAME"], ...items.map((item) => [item.id, item.name ?? ""])]),
        );
      });
  }
}
