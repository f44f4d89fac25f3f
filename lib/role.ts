/**
 * The role descriptor: what `main.ts` needs to know to list, configure and run a role.
 *
 * @module
 */
import type { Log } from "./log.ts";
import type { MetricsRegistry } from "./metrics/registry.ts";
import {
  type Env,
  readSettings,
  type Schema,
  SettingsError,
  type SettingsOf,
} from "./settings.ts";

/**
 * Exit code for a bad command line or bad settings (a role's own usage error too,
 * such as the reader's missing address).
 *
 * @example
 * ```ts
 * const code: number = EXIT_USAGE; // 2
 * ```
 */
export const EXIT_USAGE = 2;

/** What a role is started with, besides its parsed settings. */
export interface RoleContext {
  /** The merged environment (process environment over `.env`). */
  readonly env: Env;
  /** Positional arguments written after the role name on the command line. */
  readonly args: readonly string[];
  /** Command-line flags such as `once` (from `--once`). */
  readonly flags: ReadonlySet<string>;
  /** The role's logger. */
  readonly log: Log;
  /**
   * The role's view of the process' metrics registry (every series registered in
   * it is labelled `role`); absent when the process serves no metrics
   * (`METRICS_PORT` unset), so that a role adds no metrics middleware then.
   */
  readonly metrics?: MetricsRegistry;
}

/** A started role. */
export interface RunningRole {
  /**
   * Resolves with an exit code when the role ends by itself (a one-shot run);
   * long-running roles leave it pending until stopped.
   */
  readonly done?: Promise<number>;
  /** Stops the role cleanly: stop taking work, finish what is in hand (bounded). */
  stop(): Promise<void>;
  /**
   * What keeps the role from doing its work now, in one sentence (`GET /readyz`
   * of the metrics endpoint, `homewire_ready`); `undefined` when ready.
   * @default ready once started
   */
  ready?(): string | undefined | Promise<string | undefined>;
}

/** A role's descriptor, as registered in `roles.ts`. */
export interface RoleDescriptor {
  /** Name used on the command line. */
  readonly name: string;
  /** One line for `--help`. */
  readonly summary: string;
  /** Command-line shape shown in `--help`, e.g. `table [PORT] [HOST] [OPEN_BROWSER]`. */
  readonly usage?: string;
  /** How many positional arguments the role takes. */
  readonly maxArgs: number;
  /** Command-line flags the role reads (`once` for `--once`). */
  readonly flags: readonly string[];
  /**
   * Whether it must be the only role of its process, always or with the
   * positional arguments given (a one-shot command of a serving role).
   */
  readonly runsAlone: boolean | ((args: readonly string[]) => boolean);
  /**
   * Registers every series the role exposes (no samples yet) in `registry`: what
   * the documentation lists. @default none
   */
  readonly series?: (registry: MetricsRegistry) => void;
  /** Every environment variable the role reads. */
  readonly settings: Schema;
  /**
   * Families of variables whose names hold part of another setting's value
   * (`PROXY_ROUTE_<NAME>_QUERY`): pattern and description, for `--help`.
   */
  readonly patterns?: Readonly<Record<string, string>>;
  /**
   * Validates the role's settings (throwing a `SettingsError` listing every problem)
   * and returns the function that starts it.
   */
  prepare(
    context: Omit<RoleContext, "log" | "metrics">,
  ): (log: Log, metrics?: MetricsRegistry) => Promise<RunningRole>;
}

/** What {@linkcode defineRole} takes. */
export interface RoleDefinition<S extends Schema> {
  /** Name used on the command line. */
  name: string;
  /** One line for `--help`. */
  summary: string;
  /** Command-line shape shown in `--help`. */
  usage?: string;
  /** Every environment variable the role reads. */
  settings: S;
  /**
   * Families of variables whose names hold part of another setting's value
   * (`PROXY_ROUTE_<NAME>_QUERY`, a route's name in place of `<NAME>`): pattern and
   * description, for `--help`. `check` reads and validates them. @default none
   */
  patterns?: Readonly<Record<string, string>>;
  /** How many positional arguments the role takes. @default 0 */
  maxArgs?: number;
  /** Command-line flags the role reads (`once` for `--once`). @default none */
  flags?: readonly string[];
  /**
   * A one-shot program whose exit code is its verdict (the reader, `messages
   * backup PATH`): it runs alone in its process, so no other role hides that code.
   * A function decides from the positional arguments. @default false
   */
  runsAlone?: boolean | ((args: readonly string[]) => boolean);
  /**
   * Maps positional arguments to environment overrides before parsing
   * (`table 3838 0.0.0.0 false` sets `TABLE_PORT`, `TABLE_HOST`, `TABLE_OPEN_BROWSER`).
   */
  argsToEnv?(args: readonly string[]): Record<string, string>;
  /**
   * Problems that involve several settings together (one sentence each), reported
   * with the others so start-up stops with {@linkcode EXIT_USAGE}. It runs even when other
   * settings have problems: `settings` holds those that parsed, and `failed` names
   * those that did not (so a rule can stay quiet about a setting already reported).
   * `env` is the whole environment, for the variables of `patterns`; `args` the
   * positional arguments.
   */
  check?(
    settings: Partial<SettingsOf<S>>,
    failed: ReadonlySet<keyof S & string>,
    env: Env,
    args: readonly string[],
  ): string[];
  /**
   * Registers every series the role exposes (no samples yet) in `registry`, for
   * the documentation; the role registers the same ones when it starts.
   * @default none
   */
  series?: (registry: MetricsRegistry) => void;
  /** Starts the role. */
  start(settings: SettingsOf<S>, context: RoleContext): Promise<RunningRole>;
}

/**
 * Builds a {@linkcode RoleDescriptor} from a typed definition.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { defineRole } from "./role.ts";
 * import { listenAt, listenSettings, serveApp } from "./serve.ts";
 *
 * export const helloRole = defineRole({
 *   name: "hello",
 *   summary: "Says hello",
 *   settings: { ...listenSettings("HELLO", 8009) },
 *   start(settings, { log }) {
 *     const app = new Hono().get("/", (c) => c.text("hello"));
 *     const server = serveApp(app, { ...listenAt("HELLO", settings), log, name: "hello" });
 *     return Promise.resolve({ stop: server.stop });
 *   },
 * });
 * ```
 */
export function defineRole<S extends Schema>(
  definition: RoleDefinition<S>,
): RoleDescriptor {
  return {
    name: definition.name,
    summary: definition.summary,
    usage: definition.usage,
    maxArgs: definition.maxArgs ?? 0,
    flags: definition.flags ?? [],
    runsAlone: definition.runsAlone ?? false,
    series: definition.series,
    settings: definition.settings,
    patterns: definition.patterns ?? {},
    prepare(context) {
      const extra = context.args.slice(definition.maxArgs ?? 0);
      const env = { ...context.env, ...definition.argsToEnv?.(context.args) };
      const { values, problems, failed } = readSettings(
        definition.settings,
        env,
      );
      problems.unshift(
        ...extra.map((arg) =>
          `Unexpected argument "${arg}" for role ${definition.name}: see --help for its usage`
        ),
      );
      problems.push(
        ...definition.check?.(values, failed, env, context.args) ?? [],
      );
      if (problems.length > 0) throw new SettingsError(problems);
      const settings = Object.freeze(values) as SettingsOf<S>;
      return (log, metrics) =>
        definition.start(settings, { ...context, env, log, metrics });
    },
  };
}
