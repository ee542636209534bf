/**
 * `@promo-review/cli`: the `promo-review` command. `run(argv, io)` runs it in-process, as the bin
 * does with the real process, and resolves to the exit code (`EXIT` names them).
 * @packageDocumentation
 */
export { run } from "./cli.js";
export { EXIT, type ExitCode } from "./exit-codes.js";
export type { CliIo, CliStream } from "./io.js";
