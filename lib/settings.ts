/**
 * Typed settings read from the environment, parsed once at the edge.
 *
 * A role declares its settings as a {@linkcode Schema}: one {@linkcode Setting} per
 * environment variable, built with `custom()` or the kinds of `setting_kinds.ts`
 * (`text`, `port`, `url`, ...). {@linkcode parseSettings} reads
 * them all, reports every problem at once in a {@linkcode SettingsError}, and returns
 * a frozen object keyed by variable name. Secret values never appear in a message.
 *
 * @module
 */

/** Control characters other than tab. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
/** Control characters other than tab, line feed and carriage return. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL_BUT_LINES = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** The environment as a plain record (the process environment merged with `.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

/** One environment variable: how to read it and how to describe it in `--help`. */
export interface Setting<T> {
  /** One line for `--help` and `.env.example`. */
  readonly description: string;
  /** The default as shown in `--help`; `undefined` when there is none. */
  readonly defaultText?: string;
  /** Whether start-up fails when the variable is unset or empty. */
  readonly required: boolean;
  /** Secrets are never quoted in error messages. */
  readonly secret: boolean;
  /**
   * When it is needed, for a rule across variables that `--help` shows in place of
   * "optional" (`required unless QUEUE_PROFILE is set`).
   */
  readonly requirement?: string;
  /**
   * Whether the value may span several lines (a list one item a line): line breaks
   * and tabs are then allowed; other control characters still are not.
   */
  readonly multiline?: boolean;
  /**
   * What of a secret value the log masks: `credentials` for an address secret only
   * for the `user:password` its URL form may carry; the whole value when unset.
   */
  readonly secretPart?: "credentials";
  /**
   * Whether the value names a file holding a secret (`..._FILE`, container
   * secrets): the log masks the file's content, while the path may be shown.
   */
  readonly secretFile?: boolean;
  /**
   * Turns the raw value into `T`. `raw` is `undefined` when the variable is unset or
   * empty. Throws an `Error` whose message says what was expected.
   */
  read(raw: string | undefined): T;
}

/** Settings of one role, keyed by environment variable name. */
export type Schema = Readonly<Record<string, Setting<unknown>>>;

/** The parsed values of a {@linkcode Schema}. */
export type SettingsOf<S extends Schema> = {
  readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never;
};

/**
 * Thrown by {@linkcode parseSettings}: one line per problem, each naming its variable.
 *
 * @example
 * ```ts
 * import { port } from "./setting_kinds.ts";
 *
 * try {
 *   parseSettings({ MESSAGES_PORT: port({ description: "Port to listen on" }) }, {
 *     MESSAGES_PORT: "http",
 *   });
 * } catch (error) {
 *   if (error instanceof SettingsError) error.problems; // ['Invalid MESSAGES_PORT "http": ...']
 * }
 * ```
 */
export class SettingsError extends Error {
  /** Every problem found, one sentence each. */
  readonly problems: readonly string[];

  /** Builds the error from its problems. */
  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "SettingsError";
    this.problems = problems;
  }
}

/** Marks a value as absent but not a problem; used by {@linkcode optional}. */
class MissingValue extends Error {
  constructor() {
    super("missing");
  }
}

/** What {@linkcode readSettings} found: the values that parsed and the problems. */
export interface SettingsReading<S extends Schema> {
  /** Every setting that parsed (a setting with a problem is absent). */
  values: Partial<SettingsOf<S>>;
  /** One line per missing or malformed variable. */
  problems: string[];
  /** Names of the settings that have a problem. */
  failed: Set<keyof S & string>;
}

/**
 * Reads every setting of `schema` from `env`, keeping going past problems, so that
 * rules across several settings can still run on the ones that parsed.
 *
 * @example
 * ```ts
 * import { port } from "./setting_kinds.ts";
 *
 * const { values, problems } = readSettings({ PORT: port({ description: "Port" }) }, {});
 * problems; // ["Missing PORT: Port"]
 * ```
 */
export function readSettings<S extends Schema>(
  schema: S,
  env: Env,
): SettingsReading<S> {
  const problems: string[] = [];
  const failed = new Set<keyof S & string>();
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(schema)) {
    const raw = env[name]?.trim() || undefined;
    // A line break or another control character is a slip (often of a `.env` file),
    // and would split the message that quotes the value.
    const control = setting.multiline ? CONTROL_BUT_LINES : CONTROL;
    if (raw !== undefined && control.test(raw)) {
      failed.add(name);
      problems.push(
        setting.multiline
          ? `Invalid ${name}: it holds a control character other than a line break or a tab: remove it`
          : `Invalid ${name}: it holds a control character (a line break?): write the value on one line`,
      );
      continue;
    }
    try {
      values[name] = setting.read(raw);
    } catch (error) {
      failed.add(name);
      const detail = error instanceof Error ? error.message : String(error);
      if (error instanceof MissingValue || raw === undefined) {
        problems.push(`Missing ${name}: ${setting.description}`);
      } else if (setting.secret) {
        problems.push(`Invalid ${name}: ${detail}`);
      } else {
        problems.push(
          mayHoldPassword(raw)
            ? `Invalid ${name} (not quoted: it may hold a password): ${detail}`
            : `Invalid ${name} "${raw}": ${detail}`,
        );
      }
    }
  }
  return { values: values as Partial<SettingsOf<S>>, problems, failed };
}

/**
 * Parses every setting of `schema` from `env`.
 *
 * @throws {SettingsError} listing every missing or malformed variable.
 * @example
 * ```ts
 * import { port } from "./setting_kinds.ts";
 *
 * const settings = parseSettings({ PORT: port({ default: 8001, description: "Port" }) }, {});
 * settings.PORT; // 8001
 * ```
 */
export function parseSettings<S extends Schema>(
  schema: S,
  env: Env,
): SettingsOf<S> {
  const { values, problems } = readSettings(schema, env);
  if (problems.length > 0) throw new SettingsError(problems);
  return Object.freeze(values) as SettingsOf<S>;
}

/** Options shared by every setting builder. */
export interface SettingOptions<T> {
  /** One line for `--help`. */
  description: string;
  /** Value used when the variable is unset; without it the variable is required. */
  default?: T;
  /** Hide the value from messages and `--help`. @default false */
  secret?: boolean;
  /** See {@linkcode Setting.requirement}. */
  requirement?: string;
  /** See {@linkcode Setting.multiline}. @default false */
  multiline?: boolean;
  /** See {@linkcode Setting.secretPart}. */
  secretPart?: "credentials";
  /** See {@linkcode Setting.secretFile}. @default false */
  secretFile?: boolean;
}

/**
 * A setting of a kind of its own: `parse` turns the raw value into `T` and throws an
 * `Error` saying what it expected; `show` renders the default for `--help`. Without
 * `options.default` the variable is required.
 *
 * @example
 * ```ts
 * const routes = custom(
 *   { description: "Registrations name=URL" },
 *   (raw) => raw.split(",").map((pair) => pair.split("=")),
 * );
 * ```
 */
export function custom<T>(
  options: SettingOptions<T>,
  parse: (raw: string) => T,
  show: (value: T) => string = String,
): Setting<T> {
  const hasDefault = options.default !== undefined;
  return {
    description: options.description,
    defaultText: hasDefault ? show(options.default as T) : undefined,
    required: !hasDefault,
    secret: options.secret ?? false,
    requirement: options.requirement,
    multiline: options.multiline,
    secretPart: options.secretPart,
    secretFile: options.secretFile,
    read(raw) {
      if (raw === undefined) {
        if (hasDefault) return options.default as T;
        throw new MissingValue();
      }
      return parse(raw);
    },
  };
}

/**
 * Narrows a setting: a value that `setting` accepts must also pass `isValid`, or the
 * problem says `expected <expected>`.
 *
 * @example
 * ```ts
 * import { text } from "./setting_kinds.ts";
 *
 * const host = refine(text({ description: "Host" }), "a host name", (v) => !v.includes("/"));
 * ```
 */
export function refine<T>(
  setting: Setting<T>,
  expected: string,
  isValid: (value: T) => boolean,
): Setting<T> {
  return {
    ...setting,
    read(raw) {
      const value = setting.read(raw);
      if (!isValid(value)) throw new Error(`expected ${expected}`);
      return value;
    },
  };
}

/**
 * Makes a setting optional: unset reads as `undefined` instead of a problem.
 *
 * @example
 * ```ts
 * import { text } from "./setting_kinds.ts";
 *
 * const schema = { QUEUE_PROFILE: optional(text({ description: "AWS profile" })) };
 * ```
 */
export function optional<T>(setting: Setting<T>): Setting<T | undefined> {
  return {
    ...setting,
    required: false,
    read: (raw) => raw === undefined ? undefined : setting.read(raw),
  };
}

/**
 * Whether `raw` may hold a password: a `user:password@` part, with or without a
 * scheme, anywhere in it. Such a value is not quoted in an error (a password may
 * hold any character, so no pattern could cut it out of a malformed URL safely).
 */
function mayHoldPassword(raw: string): boolean {
  const at = raw.lastIndexOf("@");
  return at > 0 && raw.slice(0, at).includes(":");
}
