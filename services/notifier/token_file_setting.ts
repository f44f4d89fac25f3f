import type { Setting } from "../../lib/settings.ts";

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
  /** Reads a file as text. @default Deno.readTextFileSync */
  readTextFile?: (path: string) => string;
}

/**
 * A setting naming a file that holds an access token; reading it yields the token.
 *
 * The file holds either the token alone (surrounding blanks and newlines are trimmed)
 * or a JSON object with a string member `token`, `access_token` or `accessToken`.
 * An unreadable file, an empty one or one holding something else is a settings
 * problem naming the file; the file's content never appears in a message.
 *
 * @example
 * ```ts
 * const schema = {
 *   PUSHBULLET_CONFIG: optional(tokenFileSetting({ description: "Token file" })),
 * };
 * ```
 */
export function tokenFileSetting(
  options: TokenFileSettingOptions,
): Setting<TokenFile> {
  const readTextFile = options.readTextFile ?? Deno.readTextFileSync;
  return {
    description: options.description,
    required: true,
    secret: false,
    read(raw) {
      if (raw === undefined) throw new Error("expected a file path");
      let content: string;
      try {
        content = readTextFile(raw);
      } catch (error) {
        throw new Error(
          `cannot read the file: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
      return { path: raw, token: tokenFromFile(content) };
    },
  };
}

/** Extracts the token from a token file's content; throws when there is none. */
export function tokenFromFile(content: string): string {
  const trimmed = content.trim();
  if (trimmed === "") {
    throw new Error("the file is empty: write the token in it");
  }
  let token: unknown = trimmed;
  if (trimmed.startsWith("{")) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new Error("the file starts with { but is not valid JSON");
    }
    token = ["token", "access_token", "accessToken"]
      .map((key) => parsed[key])
      .find((value) => typeof value === "string" && value.trim() !== "");
    if (typeof token !== "string") {
      throw new Error(
        'the JSON file has no "token", "access_token" or "accessToken" string member',
      );
    }
    token = token.trim();
  }
  if (/\s/.test(token as string)) {
    throw new Error(
      "expected the token alone (no blanks inside) or a JSON object with a token member",
    );
  }
  return token as string;
}
