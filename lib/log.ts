/**
 * The narrow logging interface every role receives through its dependencies.
 *
 * Roles never call `console` nor configure sinks: `main.ts` configures LogTape once
 * ({@link ./logging.ts}) and hands each role a {@linkcode Log} for its category.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";

/** The four levels of {@linkcode Log}, as its methods are named. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** A logger with the four levels of the product's log format. */
export interface Log {
  /**
   * Whether a line at `level` would be written: a hot path checks it before it
   * builds a line that is mostly dropped (DEBUG). Absent: every level is written.
   */
  enabled?(level: LogLevel): boolean;
  /** Log at DEBUG. */
  debug(message: string): void;
  /** Log at INFO. */
  info(message: string): void;
  /** Log at WARNING. */
  warn(message: string): void;
  /** Log at ERROR. */
  error(message: string): void;
}

/**
 * Returns a {@linkcode Log} writing to the LogTape category `["homewire", ...name]`.
 *
 * Messages are passed as values, never as templates, so braces in a logged message
 * body (JSON, for instance) are written as they are.
 *
 * @example
 * ```ts
 * const log = createLog("forwarder");
 * log.info("sqs2http start");
 * if (log.enabled?.("debug") !== false) log.debug(`state: ${JSON.stringify({})}`);
 * ```
 */
export function createLog(...name: string[]): Log {
  const logger: Logger = getLogger(["homewire", ...name]);
  return {
    enabled: (level) => logger.isEnabledFor(LOGTAPE_LEVELS[level]),
    debug: (message) => logger.debug("{message}", { message }),
    info: (message) => logger.info("{message}", { message }),
    warn: (message) => logger.warn("{message}", { message }),
    error: (message) => logger.error("{message}", { message }),
  };
}

/** LogTape's names of the levels of {@linkcode Log}. */
const LOGTAPE_LEVELS = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
} as const;

/**
 * Returns the message of an unknown thrown value followed by the messages of its
 * causes (`fetch failed: Connection refused`), skipping a cause already quoted.
 *
 * @example
 * ```ts
 * errorText(new Error("Cannot post", { cause: new Error("timed out") })); // "Cannot post: timed out"
 * ```
 */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let text = error.message;
  const seen = new Set<unknown>([error]);
  for (
    let cause = error.cause;
    cause instanceof Error && !seen.has(cause);
    cause = cause.cause
  ) {
    seen.add(cause);
    if (!text.includes(cause.message)) text += `: ${cause.message}`;
  }
  return text;
}
