/**
 * What the `messages` role needs to know of a MESSAGES_DB value that is a URL:
 * whether it names PostgreSQL, and its password, to keep it out of every text.
 *
 * @module
 */

/** `text` with the password of `url` replaced by `***`, encoded or not. */
export function scrub(text: string, url: string): string {
  const password = passwordOf(url);
  if (password === "") return text;
  let clean = text;
  for (const form of new Set([password, safeDecode(password)])) {
    if (form !== "") clean = clean.replaceAll(form, "***");
  }
  return clean;
}

/**
 * `url` with its password replaced by `***`, to be named in a log line or error.
 *
 * @example
 * ```ts
 * maskPassword("postgres://app:secret@db:5432/app"); // "postgres://app:***@db:5432/app"
 * ```
 */
export function maskPassword(url: string): string {
  const found = userInfo(url);
  if (found === undefined || found.password === "") return url;
  return `${url.slice(0, found.passwordStart)}***${url.slice(found.at)}`;
}

function passwordOf(url: string): string {
  return userInfo(url)?.password ?? "";
}

/**
 * Where the password of `scheme://user:password@host/…` lies: between the first
 * colon after `//` and the last `@` before the query string (a password may hold
 * unescaped `:` or `@`).
 */
function userInfo(
  url: string,
): { password: string; passwordStart: number; at: number } | undefined {
  const slashes = url.indexOf("//");
  if (slashes < 0) return undefined;
  const query = url.indexOf("?");
  const at = url.lastIndexOf("@", query < 0 ? url.length : query);
  if (at < slashes) return undefined;
  const colon = url.indexOf(":", slashes);
  if (colon < 0 || colon > at) return undefined;
  return {
    password: url.slice(colon + 1, at),
    passwordStart: colon + 1,
    at,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether `value` of MESSAGES_DB names a PostgreSQL database. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}
