/**
 * Settings naming which origins' pages may read a role's responses
 * (`PROXY_ALLOW_ORIGIN`, `MESSAGES_ALLOW_ORIGIN`): `*`, or a list of origins.
 *
 * @module
 */
import { custom, type Setting, type SettingOptions } from "./settings.ts";

/** `*` (any origin), or the exact origins allowed, as browsers send them in `Origin`. */
export type AllowedOrigins = "*" | readonly string[];

/**
 * Reads `*`, or a comma-separated list of origins written as browsers send them in
 * `Origin` (scheme, host and port, lower case, no default port, no slash), which they
 * compare byte for byte. Throws with the fix for each entry that is not such an
 * origin.
 *
 * @example
 * ```ts
 * parseAllowOrigin("*"); // "*"
 * parseAllowOrigin("https://app.example.com, http://127.0.0.1:5173");
 * // ["https://app.example.com", "http://127.0.0.1:5173"]
 * ```
 */
export function parseAllowOrigin(raw: string): AllowedOrigins {
  if (raw.trim() === "*") return "*";
  const entries = raw.split(",").map((entry) => entry.trim());
  const problems: string[] = [];
  const origins: string[] = [];
  for (const entry of entries) {
    if (entry === "") {
      problems.push("an entry is empty");
      continue;
    }
    if (entry === "*") {
      problems.push("* cannot be part of a list: use * alone");
      continue;
    }
    const problem = originProblem(entry);
    if (problem !== undefined) problems.push(problem);
    else if (!origins.includes(entry)) origins.push(entry);
  }
  if (problems.length > 0) {
    throw new Error(
      `expected * or origins such as https://app.example.com, comma-separated: ${
        problems.join("; ")
      }`,
    );
  }
  return Object.freeze(origins);
}

/** What is wrong with one listed origin, if anything. */
function originProblem(entry: string): string | undefined {
  if (/\s/.test(entry)) {
    return `"${entry}" holds a space: separate origins with commas`;
  }
  let origin: string | undefined;
  try {
    const url = new URL(entry);
    if (url.protocol === "http:" || url.protocol === "https:") {
      origin = url.origin;
    }
  } catch {
    // not a URL
  }
  if (origin === entry) return undefined;
  const hint = origin === undefined ? "" : ` (did you mean "${origin}"?)`;
  return `"${entry}" is not an origin as the browser sends it: scheme, host and port only${hint}`;
}

/**
 * The setting: `*` or a list of origins, read by {@linkcode parseAllowOrigin};
 * `default` as given (none: required, or wrap it in `optional`).
 *
 * @example
 * ```ts
 * allowOrigin({ description: "Origins whose pages may read responses", default: "*" });
 * ```
 */
export function allowOrigin(
  options: SettingOptions<AllowedOrigins>,
): Setting<AllowedOrigins> {
  return custom<AllowedOrigins>(
    options,
    parseAllowOrigin,
    (value) => value === "*" ? "*" : value.join(","),
  );
}
