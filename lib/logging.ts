/**
 * Process-wide LogTape configuration: the product's line format and level threshold.
 *
 * Only `main.ts` calls {@linkcode configureLogging}; everything else logs through a
 * {@linkcode import("./log.ts").Log}.
 *
 * @module
 */
import {
  configure,
  type LogLevel,
  type LogRecord,
  type Sink,
} from "@logtape/logtape";
import { choice } from "./setting_kinds.ts";

/** Level names as written in a log line (Python's names). */
export type LevelName = "DEBUG" | "INFO" | "WARNING" | "ERROR";

/** Log output settings. */
export interface LoggingOptions {
  /** Lowest level written. @default "INFO" */
  level: LevelName;
  /** `text` for `DD/MM/YYYY HH:MM:SS [LEVEL] message`, `json` for JSON lines. */
  format: "text" | "json";
  /** Where lines go. @default standard error */
  write?: (line: string) => void;
  /**
   * Values replaced by `****` in every line, whatever logged them (the values of
   * the secret settings). Values shorter than 4 characters are left alone.
   * @default []
   */
  secrets?: readonly string[];
}

/** The mask that replaces a secret in a log line. */
export const SECRET_MASK = "****";

/**
 * `text` with every one of `secrets` (4 characters or more) replaced by `****`, as
 * it is and percent-encoded (a URL in an error message).
 *
 * @example
 * ```ts
 * maskSecrets("login failed for s3cr3t-pass", ["s3cr3t-pass"]); // "login failed for ****"
 * ```
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      result = result.split(form).join(SECRET_MASK);
    }
  }
  return result;
}

const LEVEL_NAMES: Record<LogLevel, LevelName> = {
  trace: "DEBUG",
  debug: "DEBUG",
  info: "INFO",
  warning: "WARNING",
  error: "ERROR",
  fatal: "ERROR",
};

const LOGTAPE_LEVELS: Record<LevelName, LogLevel> = {
  DEBUG: "debug",
  INFO: "info",
  WARNING: "warning",
  ERROR: "error",
};

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Formats a date as `DD/MM/YYYY HH:MM:SS` in local time.
 *
 * @example
 * ```ts
 * formatTimestamp(new Date(2026, 10, 21, 9, 5, 3)); // "21/11/2026 09:05:03"
 * ```
 */
export function formatTimestamp(date: Date): string {
  return `${pad(date.getDate())}/${
    pad(date.getMonth() + 1)
  }/${date.getFullYear()} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${
      pad(date.getSeconds())
    }`;
}

function renderMessage(record: LogRecord): string {
  return record.message
    .map((part) => typeof part === "string" ? part : Deno.inspect(part))
    .join("");
}

/** Control characters (tab aside) and the Unicode line and paragraph separators. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/;
const CONTROLS = new RegExp(CONTROL.source, "g");

/** `\n`, `\r`, and `\uXXXX` for the other control characters. */
function escapeControls(message: string): string {
  return message.replace(
    CONTROLS,
    (char) =>
      char === "\n"
        ? "\\n"
        : char === "\r"
        ? "\\r"
        : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Formats one record as a text line: `DD/MM/YYYY HH:MM:SS [LEVEL] message`. Control
 * characters in the message are escaped (`\n`, `\r`, `\u001b`): a logged message
 * body can neither start a line of its own (one that could pass for another
 * record) nor send escape sequences to a terminal.
 *
 * @example
 * ```ts
 * import type { LogRecord } from "@logtape/logtape";
 *
 * const record = {
 *   category: ["forwarder"],
 *   level: "info",
 *   message: ["sqs2http start"],
 *   rawMessage: "sqs2http start",
 *   timestamp: Date.UTC(2026, 10, 21, 9, 5, 3),
 *   properties: {},
 * } as LogRecord;
 * textLine(record); // "21/11/2026 09:05:03 [INFO] sqs2http start"
 * ```
 */
export function textLine(record: LogRecord): string {
  const message = renderMessage(record);
  return `${formatTimestamp(new Date(record.timestamp))} [${
    LEVEL_NAMES[record.level]
  }] ${CONTROL.test(message) ? escapeControls(message) : message}`;
}

/**
 * Formats one record as a JSON object on one line (`LOG_FORMAT=json`).
 *
 * @example
 * ```ts
 * import type { LogRecord } from "@logtape/logtape";
 *
 * const record = {
 *   category: ["forwarder"],
 *   level: "info",
 *   message: ["sqs2http start"],
 *   rawMessage: "sqs2http start",
 *   timestamp: Date.UTC(2026, 10, 21, 9, 5, 3),
 *   properties: {},
 * } as LogRecord;
 * jsonLine(record);
 * // '{"time":"2026-11-21T09:05:03.000Z","level":"INFO","logger":"forwarder","message":"sqs2http start"}'
 * ```
 */
export function jsonLine(record: LogRecord): string {
  return JSON.stringify({
    time: new Date(record.timestamp).toISOString(),
    level: LEVEL_NAMES[record.level],
    logger: record.category.join("."),
    message: renderMessage(record),
  });
}

/**
 * Returns a sink writing each formatted record as one line through `write`, the
 * `secrets` masked in its message.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * const sink = createLineSink("text", (line) => lines.push(line));
 * ```
 */
export function createLineSink(
  format: LoggingOptions["format"],
  write: (line: string) => void,
  secrets: readonly string[] = [],
): Sink {
  const toLine = format === "json" ? jsonLine : textLine;
  const masked = secrets.filter((secret) => secret.length >= 4);
  if (masked.length === 0) return (record) => write(toLine(record));
  return (record) =>
    write(toLine({
      ...record,
      message: [maskSecrets(renderMessage(record), masked)],
    }));
}

/**
 * Configures LogTape for the whole process. Call once, from the composition root.
 *
 * @example
 * ```ts
 * await configureLogging({ level: "INFO", format: "text" });
 * ```
 */
export async function configureLogging(options: LoggingOptions): Promise<void> {
  const encoder = new TextEncoder();
  const write = options.write ??
    ((line: string) => Deno.stderr.writeSync(encoder.encode(line + "\n")));
  await configure({
    reset: true,
    sinks: {
      lines: createLineSink(options.format, write, options.secrets),
    },
    loggers: [
      {
        category: ["homewire"],
        sinks: ["lines"],
        lowestLevel: LOGTAPE_LEVELS[options.level],
      },
      {
        category: ["logtape", "meta"],
        sinks: ["lines"],
        lowestLevel: "warning",
      },
    ],
  });
}

/**
 * Settings read by every role: the log threshold and format.
 *
 * @example
 * ```ts
 * import { parseSettings } from "./settings.ts";
 *
 * parseSettings(loggingSettings, { LOG_FORMAT: "json" }); // { LOG_LEVEL: "INFO", LOG_FORMAT: "json" }
 * ```
 */
export const loggingSettings = {
  LOG_LEVEL: choice(["DEBUG", "INFO", "WARNING", "ERROR"], {
    description: "Lowest level written: DEBUG, INFO, WARNING or ERROR",
    default: "INFO",
  }),
  LOG_FORMAT: choice(["text", "json"], {
    description:
      "text (DD/MM/YYYY HH:MM:SS [LEVEL] message) or json (one object per line)",
    default: "text",
  }),
};
