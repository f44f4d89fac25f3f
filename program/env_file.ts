/**
 * `.env` loading: find the file, parse it, merge it under the process environment.
 *
 * @module
 */
import { parseEnv } from "node:util";
import { dirname, join, resolve } from "node:path";
import type { Env } from "../lib/settings.ts";
import { errorText } from "../lib/log.ts";

/** Thrown when an explicitly named env file cannot be read. */
export class EnvFileError extends Error {
  /** Builds the error; `cause` is the underlying read error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EnvFileError";
  }
}

/**
 * Returns the path of the first `.env` found in `start` or one of its parents, or
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * findEnvFile(Deno.cwd()); // "/home/pi/homewire/.env"
 * ```
 */
export function findEnvFile(start: string): string | undefined {
  let dir = resolve(start);
  while (true) {
    const candidate = join(dir, ".env");
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // not here: look one level up
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Options of {@linkcode loadEnv}. */
export interface LoadEnvOptions {
  /** The process environment; its values win over the file's. */
  env: Env;
  /** Folder where the upward search starts. */
  cwd: string;
  /** A file named with `--env-file`: used instead of the search, and must exist. */
  path?: string;
  /** Reads a file as text. @default Deno.readTextFileSync */
  readTextFile?: (path: string) => string;
}

/** What {@linkcode loadEnv} found. */
export interface LoadedEnv {
  /** The merged environment. */
  env: Env;
  /** The file that was read, if any. */
  file?: string;
}

/**
 * Merges a `.env` file under the process environment: variables already set win.
 * Values are taken as written: `${VAR}` is not expanded.
 *
 * @throws {EnvFileError} when the file (named or found) cannot be read.
 * @example
 * ```ts
 * const { env } = loadEnv({ env: Deno.env.toObject(), cwd: Deno.cwd() });
 * ```
 */
export function loadEnv(options: LoadEnvOptions): LoadedEnv {
  const file = options.path ?? findEnvFile(options.cwd);
  if (file === undefined) return { env: { ...options.env } };
  let content: string;
  try {
    content = (options.readTextFile ?? Deno.readTextFileSync)(file);
  } catch (error) {
    const fix = options.path === undefined
      ? "make it readable, or name another file with --env-file"
      : "check the --env-file path";
    throw new EnvFileError(
      `Cannot read env file "${file}": ${errorText(error)}: ${fix}`,
      { cause: error },
    );
  }
  // Editors on Windows may start the file with a byte order mark, which would
  // otherwise become part of the first name.
  const parsed = parseEnv(content.replace(/^\uFEFF/, ""));
  return { env: { ...parsed, ...options.env }, file };
}
