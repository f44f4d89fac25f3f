/**
 * What the `messages` role needs to know of a MESSAGES_DB value that is a URL:
 * whether it names PostgreSQL, and its password, to keep it out of every text.
 *
 * @module
 */

/**
 * `text` with the password of `url` replaced by `***`, encoded or not, and `url`
 * itself by {@linkcode maskPassword}'s form (a driver that cannot parse the URL
 * names it whole).
 */
export function scrub(text: string, url: string): string {
  let clean = text.replaceAll(url, maskPassword(url));
  for (const password of [passwordOf(url, false), passwordOf(url, true)]) {
    for (const form of [password, safeDecode(password)]) {
      if (form !== "") clean = clean.replaceAll(form, "***");
    }
  }
  return clean;
}

/**
 * `url` with its password replaced by `***`, to be named in a log line or error.
 * A password holding an unescaped `?`, `#`, `/` or `@` is masked whole too: the
 * mask runs to the last `@`, and so hides more than the password when the query
 * string holds an `@`.
 *
 * @example
 * ```ts
 * maskPassword("postgres://app:secret@db:5432/app"); // "postgres://app:***@db:5432/app"
 * ```
 */
export function maskPassword(url: string): string {
  const found = userInfo(url, true);
  if (found === undefined || found.password === "") return url;
  return `${url.slice(0, found.passwordStart)}***${url.slice(found.at)}`;
}

function passwordOf(url: string, widest: boolean): string {
  return userInfo(url, widest)?.password ?? "";
}

/**
 * Where the password of `scheme://user:password@host/…` lies: from the first colon
 * after `//` to the last `@` before the query string, or, `widest`, to the last `@`
 * of all (a password may hold unescaped `:`, `@`, `?`, `/`: the widest reading
 * holds it whatever it holds).
 */
function userInfo(
  url: string,
  widest: boolean,
): { password: string; passwordStart: number; at: number } | undefined {
  const slashes = url.indexOf("//");
  if (slashes < 0) return undefined;
  const query = url.indexOf("?");
  const at = url.lastIndexOf(
    "@",
    widest || query < 0 ? url.length : query,
  );
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

/**
 * Why `value` of MESSAGES_DB cannot be used, or `undefined` when it can: a URL of
 * another scheme than `postgres:`, `postgresql:` or `file:` (`postgress://…`,
 * `mysql://…`, `sqlite:///…`) is a slip, not the name of an SQLite file to create
 * (with the password in a folder's name), and so is a PostgreSQL URL that does not
 * parse. The value is named with its password masked.
 *
 * @example
 * ```ts
 * databaseProblem("mysql://app:secret@db/app"); // "Invalid MESSAGES_DB \"mysql://app:***@db/app\": ..."
 * databaseProblem("./data/messages.sqlite3"); // undefined
 * ```
 */
export function databaseProblem(value: string): string | undefined {
  // Two letters at least, so that a Windows drive (`C://…`) is a path.
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(value)?.[1];
  if (isPostgresUrl(value)) {
    try {
      // The driver reads several hosts (`h1:5432,h2:5433`) and parses the URL
      // with the first one only.
      new URL(firstHostOnly(value));
      return undefined;
    } catch {
      return `Invalid MESSAGES_DB "${
        maskPassword(value)
      }": not a URL (an unclosed [ of an IPv6 address, a port that is not a number?): write it as postgres://user:password@host:port/database`;
    }
  }
  if (scheme === undefined || scheme.toLowerCase() === "file") return undefined;
  return `Invalid MESSAGES_DB "${
    maskPassword(value)
  }": expected an SQLite database file, a file: URI, :memory: or a PostgreSQL URL (postgres:// or postgresql://), not a ${scheme}:// URL`;
}

/** `url` with only the first of a comma-separated list of hosts in its authority. */
function firstHostOnly(url: string): string {
  const start = url.indexOf("//") + 2;
  const end = url.slice(start).search(/[/?#]/);
  const authority = end < 0 ? url.slice(start) : url.slice(start, start + end);
  const hosts = authority.lastIndexOf("@") + 1;
  const comma = authority.indexOf(",", hosts);
  if (comma < 0) return url;
  return `${url.slice(0, start + comma)}${url.slice(start + authority.length)}`;
}
