/**
 * The kinds of settings: strings, secrets, hosts, numbers, ports, booleans, URLs,
 * durations, lists and choices, each built on `custom()` of `settings.ts`.
 *
 * @example
 * ```ts
 * import { parseSettings } from "./settings.ts";
 * import { boolean, choice, durationMs, host, integer, list, port, secret, url } from "./setting_kinds.ts";
 *
 * const settings = parseSettings({
 *   API_URL: url({ description: "URL of the data API" }),
 *   API_KEY: secret({ description: "Bearer token of the data API" }),
 *   TABLE_HOST: host({ description: "Address to listen on", default: "0.0.0.0" }),
 *   TABLE_PORT: port({ description: "Port to listen on", default: 3838 }),
 *   TABLE_OPEN_BROWSER: boolean({ description: "Open a browser", default: true }),
 *   REFRESH_MS: durationMs({ description: "Re-fetch interval (0: off)", default: 0 }),
 *   BUFFER_LIMIT: integer({ description: "Most points kept", default: 10000, min: 1 }),
 *   TSDB_API: choice(["v1", "v2"], { description: "Write API", default: "v1" }),
 *   RETRY_STATUSES: list({ description: "Statuses kept for redelivery", default: [] }),
 * }, { API_URL: "http://127.0.0.1:8003/data", API_KEY: "s3cret", REFRESH_MS: "30s" });
 * settings.REFRESH_MS; // 30000
 * settings.TSDB_API; // "v1"
 * ```
 *
 * @module
 */
import {
  custom,
  refine,
  type Setting,
  type SettingOptions,
} from "./settings.ts";

/** A free-form string. */
export function text(options: SettingOptions<string>): Setting<string> {
  return custom(options, (raw) => raw, (v) => v === "" ? '""' : v);
}

/** A secret string: never quoted in errors, never shown in `--help`. */
export function secret(
  options: Omit<SettingOptions<string>, "secret">,
): Setting<string> {
  return custom({ ...options, secret: true }, (raw) => raw);
}

/**
 * A secret that travels in an HTTP header (a token or API key): printable ASCII
 * without spaces.
 * A header carries bytes, and clients disagree on how they encode other characters,
 * so such a token could be accepted at start-up and then never match or never send.
 */
export function headerSecret(
  options: Omit<SettingOptions<string>, "secret">,
): Setting<string> {
  return refine(
    secret(options),
    "printable ASCII without spaces (letters, digits, punctuation), as a token in an HTTP header",
    (value) => value === "" || isHeaderToken(value),
  );
}

/** Whether `value` can travel as a token in an HTTP header: printable ASCII, no spaces. */
export function isHeaderToken(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}

/**
 * A host to listen on or connect to: an IPv4 or IPv6 address (brackets optional) or a
 * host name. Brackets are removed from an IPv6 address.
 */
export function host(options: SettingOptions<string>): Setting<string> {
  return custom(options, (raw) => {
    const value = /^\[.*\]$/.test(raw) ? raw.slice(1, -1) : raw;
    if (!isIpv4(value) && !isIpv6(value) && !isHostName(value)) {
      throw new Error(
        "expected an IP address or a host name, without scheme, port or path",
      );
    }
    return value;
  });
}

function isIpv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 &&
    parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

function isIpv6(value: string): boolean {
  if (!value.includes(":") || !/^[0-9a-fA-F:.]+$/.test(value)) return false;
  try {
    new URL(`http://[${value}]/`);
    return true;
  } catch {
    return false;
  }
}

function isHostName(value: string): boolean {
  const labels = value.replace(/\.$/, "").split(".");
  return value.length <= 253 && !/^[\d.]+$/.test(value) &&
    labels.every((label) =>
      /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(label)
    );
}

/** Options of {@linkcode integer}. */
export interface IntegerOptions extends SettingOptions<number> {
  /** Smallest accepted value. */
  min?: number;
  /** Largest accepted value. */
  max?: number;
}

/** An integer, optionally within `[min, max]`. */
export function integer(options: IntegerOptions): Setting<number> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } =
    options;
  const range = options.min !== undefined && options.max !== undefined
    ? ` from ${min} to ${max}`
    : options.min !== undefined
    ? ` of at least ${min}`
    : options.max !== undefined
    ? ` of at most ${max}`
    : "";
  return custom(options, (raw) => {
    const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isNaN(value) && !Number.isSafeInteger(value)) {
      throw new Error(
        `expected an integer${range}: this one is past ±${Number.MAX_SAFE_INTEGER}, the widest a setting takes`,
      );
    }
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`expected an integer${range}`);
    }
    return value;
  });
}

/** A TCP port, 0 to 65535 (0 picks a free port). */
export function port(options: SettingOptions<number>): Setting<number> {
  return integer({ ...options, min: 0, max: 65535 });
}

/** A number (integer or decimal). */
export function decimal(options: SettingOptions<number>): Setting<number> {
  return custom(options, (raw) => {
    const value = Number(raw);
    if (
      !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw) ||
      !Number.isFinite(value)
    ) {
      throw new Error("expected a number");
    }
    return value;
  });
}

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);
const FALSE_WORDS = new Set(["0", "false", "no", "off"]);

/** Parses a boolean word (`true/false`, `yes/no`, `on/off`, `1/0`, any case). */
export function parseBoolean(raw: string): boolean {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw new Error("expected true or false");
}

/** A boolean: `true/false`, `yes/no`, `on/off`, `1/0`, any case. */
export function boolean(options: SettingOptions<boolean>): Setting<boolean> {
  return custom(options, parseBoolean);
}

/** Options of {@linkcode url}. */
export interface UrlOptions extends SettingOptions<string> {
  /** Accepted schemes, without the colon. @default ["http", "https"] */
  protocols?: string[];
}

/** An absolute URL, kept as the string given (validated by `new URL`). */
export function url(options: UrlOptions): Setting<string> {
  const protocols = options.protocols ?? ["http", "https"];
  return custom(options, (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new Error(`expected an absolute ${protocols.join("/")} URL`);
    }
    if (!protocols.includes(parsed.protocol.slice(0, -1))) {
      throw new Error(`expected an absolute ${protocols.join("/")} URL`);
    }
    return raw;
  });
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The longest timer delay (about 24.8 days): a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of {@linkcode durationMs}. */
export interface DurationOptions extends SettingOptions<number> {
  /** Smallest accepted duration in milliseconds. @default 0 */
  min?: number;
}

/**
 * A duration in milliseconds: a plain number of milliseconds, or a number with a unit
 * `ms`, `s`, `m` or `h` (`30000`, `30s`, `1.5m`). At most 2147483647 ms (24.8 days),
 * the longest delay a timer can wait.
 */
export function durationMs(options: DurationOptions): Setting<number> {
  const min = options.min ?? 0;
  return custom(options, (raw) => {
    const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw);
    const value = match
      ? Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? "ms"]!)
      : NaN;
    if (!Number.isFinite(value) || value < min || value > MAX_TIMER_MS) {
      throw new Error(
        `expected a duration from ${min} to ${MAX_TIMER_MS} ms: a number of milliseconds or a number with ms, s, m or h`,
      );
    }
    return value;
  });
}

/** A comma-separated list; blanks around items are trimmed and empty items dropped. */
export function list(options: SettingOptions<string[]>): Setting<string[]> {
  return custom(
    options,
    (raw) =>
      raw.split(",").map((item) => item.trim()).filter((item) => item !== ""),
    (v) => v.length === 0 ? "none" : v.join(","),
  );
}

/** One of a fixed set of words (compared case-insensitively, returned as listed). */
export function choice<const T extends string>(
  values: readonly T[],
  options: SettingOptions<T>,
): Setting<T> {
  return custom(options, (raw) => {
    const found = values.find((v) => v.toLowerCase() === raw.toLowerCase());
    if (found === undefined) {
      throw new Error(`expected one of ${values.join(", ")}`);
    }
    return found;
  });
}
