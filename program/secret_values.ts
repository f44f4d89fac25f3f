/**
 * The values of the secret settings a run was given, for the log to mask.
 *
 * @module
 */
import type { Schema } from "../lib/settings.ts";

/**
 * The values in `env` of the settings of `schemas` declared secret, each as it is
 * and, for a list (a `multiline` setting), item by item; empty values are left out.
 * A setting whose `secretPart` is `credentials` (an address) gives only the
 * password and `user:password` of its URL form. A `secretFile` setting names a file:
 * its content (blanks around it trimmed) is the secret, read once with `readFile`
 * (a file that cannot be read gives none: its setting says why at start-up).
 *
 * @example
 * ```ts
 * import { secret, text } from "../lib/setting_kinds.ts";
 *
 * secretValues([{ A: secret({ description: "a" }), B: text({ description: "b" }) }], {
 *   A: "s3cret",
 *   B: "shown",
 * }); // ["s3cret"]
 * ```
 */
export function secretValues(
  schemas: readonly Schema[],
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string = Deno.readTextFileSync,
): string[] {
  const values = new Set<string>();
  for (const schema of schemas) {
    for (const [name, setting] of Object.entries(schema)) {
      const value = env[name]?.trim();
      if (setting.secretFile && value) {
        const held = contentOf(value, readFile);
        if (held) values.add(held);
        continue;
      }
      if (!setting.secret || !value) continue;
      if (setting.secretPart === "credentials") {
        for (const secret of credentialsOf(value)) values.add(secret);
        continue;
      }
      values.add(value);
      if (!setting.multiline) continue;
      for (const item of value.split(/\s+/)) if (item) values.add(item);
    }
  }
  // Longest first: a value containing another is masked whole.
  return [...values].sort((a, b) => b.length - a.length);
}

/** The trimmed content of the file at `path`, or `undefined` when unreadable. */
function contentOf(
  path: string,
  readFile: (path: string) => string,
): string | undefined {
  try {
    return readFile(path).trim();
  } catch {
    return undefined;
  }
}

/** The password and `user:password` of a URL; none for a bare host. */
function credentialsOf(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  if (url.password === "") return [];
  return [
    `${url.username}:${url.password}`,
    url.password,
    decodeURIComponent(url.password),
  ];
}
