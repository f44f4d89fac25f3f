/**
 * The `--help` text: roles, their usage, and every setting with its default.
 *
 * @module
 */
import type { RoleDescriptor } from "../lib/role.ts";
import type { Schema } from "../lib/settings.ts";

function settingLines(
  schema: Schema,
  patterns: Readonly<Record<string, string>> = {},
): string[] {
  const width = Math.max(
    0,
    ...[...Object.keys(schema), ...Object.keys(patterns)].map((name) =>
      name.length
    ),
  );
  return [
    ...Object.entries(schema).map(([name, setting]) => {
      const shown = setting.required ? "required" : setting.requirement ??
        (setting.defaultText === undefined || setting.secret
          ? "optional"
          : `default ${setting.defaultText}`);
      return `    ${name.padEnd(width)}  ${setting.description} (${shown})`;
    }),
    ...Object.entries(patterns).map(([name, description]) =>
      `    ${name.padEnd(width)}  ${description} (optional)`
    ),
  ];
}

/**
 * Renders the help text for `roles`, plus the settings every role shares; its usage
 * line starts with `program` (`deno task start`, or a compiled binary's name).
 *
 * @example
 * ```ts
 * console.log(helpText(ROLES, loggingSettings));
 * ```
 */
export function helpText(
  roles: readonly RoleDescriptor[],
  shared: Schema,
  program = "deno task start",
): string {
  const width = Math.max(...roles.map((role) => role.name.length));
  return [
    `Usage: ${program} [ROLE [ARG...]]... [--env-file PATH] [--once] [--help]`,
    "",
    "Runs one or more homewire roles in one process. With no role, runs the demo set:",
    "messages, data-api and table, with a generated data-API token.",
    "",
    "Roles:",
    ...roles.map((role) => `  ${role.name.padEnd(width)}  ${role.summary}`),
    "",
    "Options:",
    "  --env-file PATH  read settings from PATH instead of the nearest .env",
    "  --once           collector: run one pass and exit",
    "  --help, -h       show this text",
    "",
    "Settings (environment variables; a .env file is loaded first, the environment wins):",
    "  All roles:",
    ...settingLines(shared),
    ...roles.flatMap((role) => [
      `  ${role.usage ?? role.name}:`,
      ...settingLines(role.settings, role.patterns),
    ]),
    "",
  ].join("\n");
}
