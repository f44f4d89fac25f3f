/**
 * Helpers for tests of every role: nothing here is imported by production code.
 *
 * @module
 */
import type { Log } from "./log.ts";

/** One line recorded by {@linkcode createMemoryLog}. */
export interface MemoryLogEntry {
  level: "DEBUG" | "INFO" | "WARNING" | "ERROR";
  message: string;
}

/** A {@linkcode Log} that keeps its lines in memory, for tests. */
export interface MemoryLog extends Log {
  /** Every line logged so far, oldest first. */
  readonly entries: MemoryLogEntry[];
  /** The messages logged at `level`. */
  at(level: MemoryLogEntry["level"]): string[];
}

/**
 * Returns a {@linkcode MemoryLog}: a logger for tests that records instead of writing.
 *
 * @example
 * ```ts
 * const log = createMemoryLog();
 * log.warn("disk almost full");
 * log.at("WARNING"); // ["disk almost full"]
 * ```
 */
export function createMemoryLog(): MemoryLog {
  const entries: MemoryLogEntry[] = [];
  const push = (level: MemoryLogEntry["level"]) => (message: string) => {
    entries.push({ level, message });
  };
  return {
    entries,
    at: (level) =>
      entries.filter((e) => e.level === level).map((e) => e.message),
    debug: push("DEBUG"),
    info: push("INFO"),
    warn: push("WARNING"),
    error: push("ERROR"),
  };
}
