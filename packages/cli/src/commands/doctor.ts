/** `promo-review doctor`: checks the settings and the service, item by item, and says what to do. */
import type { Command } from "commander";
import { colorsFor } from "../colors.js";
import { contextOf, example } from "../context.js";
import { type Check, diagnose, doctorExitCode } from "../doctor.js";
import { ReportedExit } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { drawsOn, waitSpinner } from "../spinner.js";

/** The human lines of a diagnosis, coloured when stdout takes colour. */
export function doctorLines(checks: readonly Check[], colors: ReturnType<typeof colorsFor>): string[] {
  const marks = {
    ok: colors.green("✔ ok  "),
    warn: colors.yellow("! warn"),
    fail: colors.red("✖ fail"),
    skip: colors.dim("- skip"),
  };
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${marks[check.status]}  ${check.id}: ${check.message}`);
    if (check.advice && check.status !== "ok") lines.push(`          → ${check.advice}`);
    if (check.correlationId && check.status !== "ok" && !check.advice?.includes(check.correlationId)) {
      lines.push(`          correlation id: ${check.correlationId}`);
    }
  }
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  lines.push(
    "",
    failed === 0 && warned === 0
      ? colors.green("Everything checked is in order.")
      : `${failed} failed, ${warned} warning(s).`,
  );
  return lines;
}

/** Adds `doctor`. */
export function registerDoctor(program: Command, io: CliIo): void {
  program
    .command("doctor")
    .description(
      "Check the settings (and where each came from) and the service: the key, the user id, act-on-behalf, the file service, the webhook secret, the clock and tracing (OTEL_*); says what to do about each problem.",
    )
    .addHelpText(
      "after",
      example("$ promo-review doctor", "$ promo-review doctor --env-file staging.env --json"),
    )
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command, io);
      const spinner = waitSpinner(ctx.io.stderr, drawsOn(ctx.io.stderr, ctx.out.json));
      spinner.status("checking the settings and the service");
      const checks = await diagnose({
        globals: ctx.globals,
        processEnv: ctx.processEnv,
        envFile: ctx.envFile,
        env: ctx.env,
        now: io.now ?? Date.now,
        cwd: io.cwd ?? process.cwd(),
        telemetry: io.telemetry,
        ...ctx.signal,
      }).finally(() => spinner.stop());
      const exitCode = doctorExitCode(checks);
      ctx.out.result({ ok: exitCode === 0, exitCode, checks }, () =>
        doctorLines(checks, colorsFor(io.stdout, ctx.processEnv)),
      );
      if (exitCode !== 0) throw new ReportedExit(exitCode);
    });
}
