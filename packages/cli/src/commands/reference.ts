/** Reference data: `channels`, `jurisdictions` and `products`, the ids `create` needs. */
import type { Command } from "commander";
import { contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { table } from "../output.js";

const LISTS = [
  { name: "channels", what: "The channels a promotion can run on" },
  { name: "jurisdictions", what: "The jurisdictions a promotion can be reviewed for" },
  { name: "products", what: "The products a promotion can promote" },
] as const;

/** Adds `channels`, `jurisdictions` and `products`. */
export function registerReference(program: Command, io: CliIo): void {
  for (const list of LISTS) {
    program
      .command(list.name)
      .description(`${list.what}: id and name.`)
      .addHelpText("after", example(`$ promo-review ${list.name}`, `$ promo-review ${list.name} --json`))
      .action(async (_options: unknown, command: Command) => {
        const ctx = contextOf(command, io);
        const reference = ctx.client().reference;
        const answer = await reference[list.name](ctx.signal);
        const items = (answer as unknown as Record<string, { id: string; name?: string }[]>)[list.name] ?? [];
        ctx.out.result({ [list.name]: items, correlationId: answer.correlationId }, () =>
          table([["ID", "NAME"], ...items.map((item) => [item.id, item.name ?? ""])]),
        );
      });
  }
}
