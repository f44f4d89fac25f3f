/**
 * homewire: one program, many roles. The only composition root: parses the command
 * line, loads `.env` and settings, configures logging, starts the roles and stops
 * them on SIGINT/SIGTERM.
 *
 * ```sh
 * deno task start                       # the demo set: messages, data-api, table
 * deno task start forwarder             # one role
 * deno task start messages proxy        # several roles in one process
 * deno task start table 3838 0.0.0.0 false
 * deno task start --help
 * ```
 *
 * @module
 */
import { combinationProblems, parseCommandLine } from "./program/cli.ts";
import { EnvFileError, loadEnv } from "./program/env_file.ts";
import { helpText } from "./program/help.ts";
import { createLog, errorText } from "./lib/log.ts";
import { configureLogging } from "./lib/logging.ts";
import {
  EXIT_USAGE,
  type RoleDescriptor,
  type RunningRole,
} from "./lib/role.ts";
import type { RunningServer } from "./lib/serve.ts";
export type { RoleContext, RoleDescriptor, RunningRole } from "./lib/role.ts";
export type { Log, LogLevel } from "./lib/log.ts";
export type * from "./lib/metrics/registry.ts";
export type { ExpositionFormat, MetricType } from "./lib/metrics/exposition.ts";
export type { Env, Schema, Setting } from "./lib/settings.ts";
import { parseSettings, SettingsError } from "./lib/settings.ts";
import { DEMO_ROLES, demoBanner, demoEnv } from "./program/demo.ts";
import { ROLES } from "./program/roles.ts";
import {
  processRegistry,
  roleStates,
  serveMetrics,
} from "./program/metrics_endpoint.ts";
import { processSettings } from "./program/process_settings.ts";
import { secretValues } from "./program/secret_values.ts";
import { routeConsoleToLog } from "./program/console_to_log.ts";

/** What {@linkcode main} needs from the outside world. */
export interface MainOptions {
  /** Command-line arguments. */
  argv: readonly string[];
  /** The process environment. */
  env: Record<string, string | undefined>;
  /** Where the `.env` search starts. */
  cwd: string;
  /** Roles available. */
  roles: readonly RoleDescriptor[];
  /** Writes a line to standard output. */
  print(line: string): void;
  /** Writes a line to standard error. */
  printError(line: string): void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopRequested: Promise<string>;
  /** Where log lines go. @default standard error */
  writeLog?: (line: string) => void;
  /** How the user starts the program, for `--help`. @default "deno task start" */
  program?: string;
  /**
   * How long a stop requested while a role starts waits for that start to end, so
   * the role is stopped with the others. @default 5000
   */
  lateStartMs?: number;
}

/**
 * Runs the program and resolves with its exit code.
 */
export async function main(options: MainOptions): Promise<number> {
  let stopSignal: string | undefined; // a signal before the roles start: none starts
  options.stopRequested.then((signal) => stopSignal = signal);
  const command = parseCommandLine(options.argv, options.roles);
  if (command.help) {
    options.print(helpText(options.roles, processSettings, options.program));
    return 0;
  }
  const problems = [...command.problems];

  let env = options.env;
  try {
    env = loadEnv({ env: options.env, cwd: options.cwd, path: command.envFile })
      .env;
  } catch (error) {
    if (!(error instanceof EnvFileError)) throw error;
    problems.push(error.message);
  }

  const requests = command.roles.length > 0
    ? command.roles
    : DEMO_ROLES.map((name) => ({ name, args: [] as string[] }));
  let generatedToken: string | undefined;
  if (command.roles.length === 0) ({ env, generatedToken } = demoEnv(env));
  problems.push(...combinationProblems(command.flags, requests, options.roles));

  let logging;
  try {
    logging = parseSettings(processSettings, env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    problems.push(...error.problems);
  }

  const starters: {
    name: string;
    start: ReturnType<RoleDescriptor["prepare"]>;
  }[] = [];
  const prepared = new Set<string>();
  for (const request of requests) {
    const role = options.roles.find((r) => r.name === request.name);
    // A role named twice is already a problem of the command line.
    if (!role || prepared.has(role.name)) continue;
    prepared.add(role.name);
    try {
      starters.push({
        name: role.name,
        start: role.prepare({ env, args: request.args, flags: command.flags }),
      });
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      problems.push(...error.problems.map((p) => `${role.name}: ${p}`));
    }
  }

  if (problems.length > 0 || !logging) {
    for (const problem of problems) options.printError(problem);
    options.printError("Run with --help to see every role and setting.");
    return EXIT_USAGE;
  }

  await configureLogging({
    level: logging.LOG_LEVEL,
    format: logging.LOG_FORMAT,
    write: options.writeLog,
    // Whatever logs them (a role, a library, an escaped error): never shown.
    secrets: secretValues(
      options.roles.filter((role) => prepared.has(role.name)).map((role) =>
        role.settings
      ),
      env,
    ),
  });
  const log = createLog("main");

  // One metrics endpoint for every role of the process, up before the roles so
  // that /readyz says which one is still starting.
  const states = roleStates(starters.map(({ name }) => name));
  const registry = logging.METRICS_PORT === undefined
    ? undefined
    : processRegistry(states);
  let metricsServer: RunningServer | undefined;
  if (registry) {
    try {
      metricsServer = serveMetrics({
        registry,
        states,
        hostname: logging.METRICS_HOST,
        port: logging.METRICS_PORT!,
        log: createLog("metrics"),
      });
    } catch (error) {
      log.error(`Cannot start the metrics endpoint: ${errorText(error)}`);
      return 1;
    }
  }

  const running: { name: string; role: RunningRole }[] = [];
  /** Stops the started roles, last first; false when one could not stop cleanly. */
  const stopAll = async (): Promise<boolean> => {
    const stopping = running.reverse();
    const outcomes = await Promise.allSettled(
      stopping.map(({ role }) => role.stop()),
    );
    await metricsServer?.stop();
    outcomes.forEach((outcome, i) => {
      if (outcome.status === "rejected") {
        log.error(
          `Cannot stop ${stopping[i]!.name}: ${errorText(outcome.reason)}`,
        );
      }
    });
    return outcomes.every((outcome) => outcome.status === "fulfilled");
  };
  /** Stops what started, after a signal that came before every role was up. */
  const stopEarly = async () => {
    if (!await stopAll()) return 1;
    log.info("Stopped");
    return 0;
  };

  for (const { name, start } of starters) {
    if (stopSignal !== undefined) {
      log.info(`Received ${stopSignal}: stopping`);
      return await stopEarly();
    }
    // A start may throw at once (a port in use) or later: both are its failure.
    const starting = Promise.resolve().then(() =>
      start(createLog(name), registry?.with({ role: name }))
    );
    const first = await Promise.race([
      starting.then((role) => ({ role }), (error: unknown) => ({ error })),
      options.stopRequested.then((signal) => ({ signal })),
    ]);
    if ("signal" in first) {
      log.info(`Received ${first.signal} while starting ${name}: stopping`);
      // A start may wait long (a profile's credential process): the stop waits for
      // it a little, to stop it with the others, and no longer.
      const late = await lateStart(starting, options.lateStartMs ?? 5000);
      if (late) running.push({ name, role: late });
      return await stopEarly();
    }
    if ("error" in first) {
      log.error(`Cannot start ${name}: ${errorText(first.error)}`);
      await stopAll();
      return 1;
    }
    running.push({ name, role: first.role });
    states.started(name, first.role);
  }
  // Once everything listens: where to look, and the token of this run.
  if (command.roles.length === 0) {
    for (const line of demoBanner(env, generatedToken)) options.print(line);
  }

  const finite = running.every(({ role }) => role.done !== undefined);
  const allDone = finite
    ? Promise.all(running.map(({ name, role }) =>
      role.done!.catch((error) => {
        log.error(`${name} failed: ${errorText(error)}`);
        return 1;
      })
    )).then((codes) => Math.max(0, ...codes))
    : new Promise<never>(() => {});
  const outcome = await Promise.race([
    allDone.then((code) => ({ code })),
    options.stopRequested.then((signal) => ({ signal })),
  ]);
  if ("code" in outcome) {
    const stopped = await stopAll();
    return stopped ? outcome.code : Math.max(1, outcome.code);
  }
  log.info(`Received ${outcome.signal}: stopping`);
  const stopped = await stopAll();
  // A stopped one-shot role keeps its verdict: `collector --once` says 1 when it
  // left points unwritten (`stop()` waits for `done`, so this does not wait longer).
  const code = finite ? await allDone : 0;
  if (!stopped) return 1;
  log.info("Stopped");
  return code;
}

/** The role `starting` gives within `ms`, or `undefined` (failed or still starting). */
async function lateStart(
  starting: Promise<RunningRole>,
  ms: number,
): Promise<RunningRole | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const giveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([starting.catch(() => undefined), giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How the user started the program: `deno task start` under Deno, or the name of a
 * compiled binary (`homewire`).
 */
export function programName(execPath: string): string {
  const name = execPath.split(/[\\/]/).at(-1) ?? "";
  return /^deno(\.exe)?$/.test(name) ? "deno task start" : name;
}

/**
 * A signal within this time of the first is the same stop request delivered twice
 * (`deno task` passes a SIGTERM on to the process, which also gets its process
 * group's copy), not a user insisting.
 */
const REPEAT_GRACE_MS = 1000;

/**
 * Resolves at the first SIGINT/SIGTERM; a later one (a user pressing Ctrl-C again)
 * ends the process at once with exit code 1, without waiting for the roles to stop.
 */
function signalPromise(): Promise<string> {
  return new Promise((resolve) => {
    let first: number | undefined;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => {
        const now = performance.now();
        if (first === undefined) {
          first = now;
          return resolve(signal);
        }
        if (now - first < REPEAT_GRACE_MS) return;
        createLog("main").warn(
          `Received ${signal} again: exiting now, without waiting for the roles to stop`,
        );
        Deno.exit(1);
      });
    }
  });
}

/**
 * Ends the process with a log line in the product's format when a failure escapes
 * every handler (for example the HTTP server's accept loop when the process runs
 * out of file descriptors), instead of the runtime's own message; what a library
 * writes with `console` goes through the logger too, masked.
 */
function exitOnEscapedFailure(): void {
  routeConsoleToLog(createLog("main"));
  const fail = (what: string, error: unknown) => {
    createLog("main").error(`${what}: ${errorText(error)}; exiting`);
    Deno.exit(1);
  };
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    fail("Unexpected failure", event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    fail("Unexpected error", event.error);
  });
}

if (import.meta.main) {
  exitOnEscapedFailure();
  const encoder = new TextEncoder();
  const code = await main({
    argv: Deno.args,
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    roles: ROLES,
    print: (line) => Deno.stdout.writeSync(encoder.encode(line + "\n")),
    printError: (line) => Deno.stderr.writeSync(encoder.encode(line + "\n")),
    stopRequested: signalPromise(),
    program: programName(Deno.execPath()),
  });
  Deno.exit(code);
}
