/**
 * Sends what a library writes with the global `console` (a dependency's warning)
 * through the logger, so that it reaches standard error in the log format, masked.
 * Deno's own messages (such as the trace of a response body that failed mid-way)
 * use an internal console this does not reach.
 *
 * @module
 */
import { errorText, type Log } from "../lib/log.ts";

/** The `console` methods {@linkcode routeConsoleToLog} replaces. */
export type ConsoleLike = Pick<
  Console,
  "error" | "warn" | "log" | "info" | "debug" | "trace"
>;

/**
 * Replaces the writing methods of `target` (the global `console` by default):
 * `error` and `trace` log at ERROR, `warn` at WARNING, `log` and `info` at INFO,
 * `debug` at DEBUG. An error is written as its message and causes, without its
 * stack; other values as `Deno.inspect` shows them, on one line.
 *
 * @example
 * ```ts
 * import { createLog } from "../lib/log.ts";
 *
 * routeConsoleToLog(createLog("main"));
 * console.error(new Error("boom")); // 21/11/2026 09:05:03 [ERROR] boom
 * ```
 */
export function routeConsoleToLog(
  log: Log,
  target: ConsoleLike = globalThis.console,
): void {
  const text = (values: unknown[]) =>
    values.map((value) =>
      typeof value === "string"
        ? value
        : value instanceof Error
        ? errorText(value)
        : Deno.inspect(value, { colors: false, breakLength: Infinity })
    ).join(" ");
  target.error = (...values) => log.error(text(values));
  target.trace = (...values) => log.error(text(values));
  target.warn = (...values) => log.warn(text(values));
  target.log = (...values) => log.info(text(values));
  target.info = (...values) => log.info(text(values));
  target.debug = (...values) => log.debug(text(values));
}
