/**
 * `@promo-review/cli`: the `promo-review` command. `run(argv, io)` runs it in-process (what the bin
 * does with the real process); `runDemo` is the demo's workflow on its own.
 * @packageDocumentation
 */
export { buildProgram, run, VERSION } from "./cli.js";
export { type DemoOptions, type DemoStep, type DemoSummary, demoSummaryLines, runDemo } from "./demo.js";
export { EXIT, type ExitCode, exitCodeOf } from "./exit-codes.js";
export type { CliIo, CliStream } from "./io.js";
export { type DescribedError, describeError } from "./output.js";
export { samplePdf } from "./sample-pdf.js";
export { UsageError, type UsageProblem } from "./usage-error.js";
