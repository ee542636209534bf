/**
 * What the SDK logs through: `console` fits as it is, and so does a pino or winston logger. Every line
 * is one call `logger.<level>(message, fields)`: the message alone says everything (so a logger that
 * ignores extra arguments, as pino does when the first argument is a string, still prints a whole
 * line), and `fields` repeats it as data for a logger that prints objects (console does).
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The levels of {@link Logger}. */
export type LogLevel = keyof Logger;

/**
 * Calls `logger[level]` and swallows what it throws: a broken logger must not fail the request it
 * describes. The method is called on the logger, so a class-based logger keeps its `this`.
 */
export function logLine(
  logger: Logger | undefined,
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
): void {
  if (!logger) return;
  try {
    logger[level](message, fields);
  } catch {
    // A logger that throws has nowhere better to report to.
  }
}
