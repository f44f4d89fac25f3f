/**
 * Command-line parsing for `main.ts`: roles with their positional arguments, and flags.
 *
 * @module
 */

/** One role named on the command line. */
export interface RoleRequest {
  /** The role's name. */
  name: string;
  /** Positional arguments that followed it. */
  args: string[];
}

/** The parsed command line. */
export interface CommandLine {
  /** Roles in the order given; empty means the demo set. */
  roles: RoleRequest[];
  /** `--help` or `-h` was given. */
  help: boolean;
  /** `--env-file PATH`. */
  envFile?: string;
  /** Role flags such as `once` (from `--once`). */
  flags: Set<string>;
  /** One line per problem (unknown role, unknown flag, missing flag value). */
  problems: string[];
}

const ROLE_FLAGS = new Set(["once"]);

/** What the parser needs to know of a role. */
export interface RoleShape {
  /** The role's name. */
  readonly name: string;
  /** How many positional arguments it takes. @default 0 */
  readonly maxArgs?: number;
  /** Command-line flags it reads (`once` for `--once`). @default none */
  readonly flags?: readonly string[];
  /**
   * Whether it must be the only role of its process, always or with the positional
   * arguments given. @default false
   */
  readonly runsAlone?: boolean | ((args: readonly string[]) => boolean);
}

/**
 * Parses `[ROLE [ARG...]]... [--env-file PATH] [--once] [--help]`.
 *
 * A word that is a role name starts a role; any other word is an argument of the role
 * before it while that role takes more, and an unknown role otherwise (so a misspelt
 * second role is reported as one).
 *
 * @example
 * ```ts
 * parseCommandLine(["table", "3838", "0.0.0.0", "false"], [{ name: "table", maxArgs: 3 }])
 *   .roles;
 * // [{ name: "table", args: ["3838", "0.0.0.0", "false"] }]
 * ```
 */
export function parseCommandLine(
  argv: readonly string[],
  roles: readonly RoleShape[],
): CommandLine {
  const roleNames = roles.map((role) => role.name);
  const result: CommandLine = {
    roles: [],
    help: false,
    flags: new Set(),
    problems: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") {
      // npm's habit (`deno task start -- messages`): nothing to separate here.
      continue;
    } else if (word === "--help" || word === "-h") {
      result.help = true;
    } else if (word === "--env-file" || word.startsWith("--env-file=")) {
      const value = word.includes("=")
        ? word.slice(word.indexOf("=") + 1)
        : argv[++i];
      if (!value) {
        result.problems.push("Missing value for --env-file: give a file path");
      } else result.envFile = value;
    } else if (word.startsWith("--") && ROLE_FLAGS.has(word.slice(2))) {
      result.flags.add(word.slice(2));
    } else if (word.startsWith("--")) {
      result.problems.push(`Unknown option "${word}": see --help`);
    } else if (roleNames.includes(word)) {
      result.roles.push({ name: word, args: [] });
    } else if (room(result.roles.at(-1), roles) > 0) {
      result.roles.at(-1)!.args.push(word);
    } else {
      const last = result.roles.at(-1);
      result.problems.push(
        last
          ? `Unknown role "${word}", or an argument too many: ${last.name} ${
            takes(last, roles)
          } (roles: ${roleNames.join(", ")})`
          : `Unknown role "${word}": expected one of ${roleNames.join(", ")}`,
      );
    }
  }
  const seen = new Set<string>();
  for (const { name } of result.roles) {
    if (seen.has(name)) {
      result.problems.push(`Role "${name}" is named twice: name it once`);
    }
    seen.add(name);
  }
  return result;
}

function maxArgs(request: RoleRequest, roles: readonly RoleShape[]): number {
  return roles.find((role) => role.name === request.name)?.maxArgs ?? 0;
}

/** How many more arguments `request` (the last role named) takes. */
function room(
  request: RoleRequest | undefined,
  roles: readonly RoleShape[],
): number {
  return request ? maxArgs(request, roles) - request.args.length : 0;
}

/** `takes no arguments`, `takes at most 3 arguments`. */
function takes(request: RoleRequest, roles: readonly RoleShape[]): string {
  const max = maxArgs(request, roles);
  return max === 0
    ? "takes no arguments"
    : `takes at most ${max} argument${max === 1 ? "" : "s"}`;
}

/**
 * What cannot run together: a flag without a role that reads it (`--once` without
 * `collector`) or next to roles that do not (a one-pass run beside a server would
 * never end), and a role that runs alone (the reader) next to others.
 *
 * @example
 * ```ts
 * combinationProblems(new Set(["once"]), [{ name: "messages" }], roles);
 * // ['Option "--once" applies to collector only: name that role too (...)']
 * ```
 */
export function combinationProblems(
  flags: ReadonlySet<string>,
  requests: readonly { name: string; args?: readonly string[] }[],
  roles: readonly RoleShape[],
): string[] {
  const named = roles.filter((role) =>
    requests.some((request) => request.name === role.name)
  );
  const reads = (role: RoleShape, flag: string) =>
    role.flags?.includes(flag) ?? false;
  const problems = [...flags].flatMap((flag) => {
    const owners = roles.filter((role) => reads(role, flag))
      .map((role) => role.name);
    const others = named.filter((role) => !reads(role, flag))
      .map((role) => role.name);
    if (others.length === 0) return [];
    const rule = `Option "--${flag}" applies to ${owners.join(", ")} only`;
    return others.length === named.length
      ? [`${rule}: name that role too (${owners[0]} --${flag})`]
      : [`${rule}: start ${others.join(", ")} in another process`];
  });
  const alone = (role: RoleShape) => {
    const args = requests.find((request) => request.name === role.name)?.args;
    return typeof role.runsAlone === "function"
      ? role.runsAlone(args ?? [])
      : role.runsAlone ?? false;
  };
  if (requests.length > 1) {
    for (const role of named.filter(alone)) {
      problems.push(
        `Role "${role.name}" runs alone (its exit code is its verdict): start the other roles in another process`,
      );
    }
  }
  return problems;
}
