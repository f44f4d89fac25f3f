/**
 * A setting naming a file that holds an access token (the notifier's
 * `PUSHBULLET_CONFIG`).
 *
 * @module
 */
import { errorText } from "../../lib/log.ts";
import { custom, type Setting } from "../../lib/settings.ts";
import { isHeaderToken } from "../../lib/setting_kinds.ts";

/** The token read from a token file, with the file's path (for log lines). */
export interface TokenFile {
  /** Path of the file, as configured. */
  readonly path: string;
  /** The access token found in it. */
  readonly token: string;
}

/** Options of {@linkcode tokenFileSetting}. */
export interface TokenFileSettingOptions {
  /** One line for `--help`. */
  description: string;
  /**
   * Another setting that can give the token instead; named in the message when the
   * file holds no token.
   */
  alternative?: string;
  /** Reads a file as text. @default Deno.readTextFileSync */
  readTextFile?: (path: string) => string;
}

/**
 * A setting naming a file that holds an access token; reading it yields the token.
 *
 * The file's formats are those of {@linkcode tokenFromFile}; surrounding blanks and
 * newlines are trimmed. An unreadable file, an empty one or one holding something
 * else is a settings problem naming the file; the file's content never appears in a
 * message.
 *
 * @example
 * ```ts
 * import { optional } from "../../lib/settings.ts";
 *
 * const schema = {
 *   PUSHBULLET_CONFIG: optional(tokenFileSetting({ description: "Token file" })),
 * };
 * ```
 */
export function tokenFileSetting(
  options: TokenFileSettingOptions,
): Setting<TokenFile> {
  const readTextFile = options.readTextFile ?? Deno.readTextFileSync;
  const hint = options.alternative
    ? `write the token in it or set ${options.alternative}`
    : "write the token in it";
  return custom({ description: options.description }, (path) => {
    let content: string;
    try {
      content = readTextFile(path);
    } catch (error) {
      throw new Error(`cannot read the file: ${errorText(error)}`);
    }
    return { path, token: tokenFromFile(content, hint) };
  });
}

const TOKEN_MEMBERS = ["token", "access_token", "accessToken"];

/**
 * `NAME=value` or `NAME: value`, as in `.env`, INI and YAML files; `export NAME=value`
 * as in a shell file.
 */
const ASSIGNMENT = /^\s*(?:export\s+)?["']?([\w.-]+)["']?\s*[=:]\s*(.*?)\s*$/;
const TOKEN_NAME = /token|api_?key/i;

/**
 * Extracts the token from a token file's content, less its comment lines (`#` or
 * `;` first): the token alone, a JSON object with a `token`, `access_token` or
 * `accessToken` member, or a line `NAME=token` / `NAME: token` (`export` first
 * allowed) whose name contains `token` or `api_key` (`PUSHBULLET_TOKEN=o.abc`,
 * `access_token: "o.abc"`; an unquoted value ends at a ` # comment`).
 *
 * @param hint what to do when the file holds no token, appended to that message.
 * @throws {Error} when the file holds no token, or something that is not one; the
 * message never quotes the content.
 */
export function tokenFromFile(
  content: string,
  hint = "write the token in it",
): string {
  const trimmed = withoutComments(content).trim();
  if (trimmed === "") throw new Error(`the file is empty: ${hint}`);
  const token = trimmed.startsWith("{")
    ? tokenFromJson(trimmed, hint)
    : tokenFromAssignment(trimmed, hint) ?? trimmed;
  if (!isHeaderToken(token)) {
    throw new Error(
      "expected the token alone (printable ASCII, no blanks inside), a NAME=token line or a JSON object with a token member",
    );
  }
  return token;
}

/** The content less its comment lines (`#` or `;` first) and a BOM. */
function withoutComments(content: string): string {
  return content.replace(/^\uFEFF/, "").split(/\r?\n/)
    .filter((line) => !/^\s*[#;]/.test(line))
    .join("\n");
}

function tokenFromJson(text: string, hint: string): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error("the file starts with { but is not valid JSON");
  }
  const member = TOKEN_MEMBERS.map((key) => parsed[key])
    .find((value) => typeof value === "string" && value.trim() !== "");
  if (typeof member !== "string") {
    throw new Error(
      `the JSON file has no "token", "access_token" or "accessToken" string member: ${hint}`,
    );
  }
  return member.trim();
}

/** The value of the first `NAME=value` line naming a token; undefined when none. */
function tokenFromAssignment(text: string, hint: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    const [, name, value] = ASSIGNMENT.exec(line) ?? [];
    if (name === undefined || !TOKEN_NAME.test(name)) continue;
    const quoted = /^(["'])(.*?)\1(\s+#.*)?$/.exec(value!);
    // An unquoted value ends where a ` # comment` starts.
    const token = (quoted ? quoted[2]! : value!.replace(/\s+#.*$/, "")).trim();
    if (token === "") throw new Error(`the token line is empty: ${hint}`);
    return token;
  }
  return undefined;
}
