/**
 * Argument checks of the {@linkcode Gzaas} client: each returns the value when it is
 * valid and throws a `TypeError` in the house style otherwise.
 *
 * @module
 */

/** Returns `hex` when it is 3 or 6 hex digits. */
export function checkHex(label: string, hex: string): string {
  if (typeof hex !== "string" || !/^([0-9a-f]{3}|[0-9a-f]{6})$/i.test(hex)) {
    throw new TypeError(
      `Invalid ${label} "${
        String(hex)
      }": expected 3 or 6 hex digits without #, such as ff0000`,
    );
  }
  return hex;
}

/** Returns `value` when it is a non-empty string; a secret is not quoted. */
export function checkText(
  label: string,
  value: string,
  options: { secret?: boolean } = {},
): string {
  if (typeof value !== "string" || value === "") {
    const shown = options.secret ? "" : ` "${String(value)}"`;
    throw new TypeError(
      `Invalid ${label}${shown}: expected a non-empty string`,
    );
  }
  return value;
}

/** Returns `url` without trailing slashes when it is an absolute URL. */
export function checkBaseUrl(url: string): string {
  try {
    new URL(url);
  } catch {
    throw new TypeError(`Invalid baseUrl "${url}": expected an absolute URL`);
  }
  return url.replace(/\/+$/, "");
}

/** Returns `ms` when it is a positive number. */
export function checkTimeout(ms: number): number {
  if (!(Number.isFinite(ms) && ms > 0)) {
    throw new TypeError(
      `Invalid timeoutMs "${ms}": expected a positive number of milliseconds`,
    );
  }
  return ms;
}

/** Returns `bytes` when it is a positive integer (a bound on a reply's bytes). */
export function checkMaxBytes(bytes: number): number {
  if (!(Number.isInteger(bytes) && bytes > 0)) {
    throw new TypeError(
      `Invalid maxReplyBytes "${bytes}": expected a positive whole number of bytes`,
    );
  }
  return bytes;
}

/** Returns `value` when it is an integer (a visibility, for instance). */
export function checkInteger(label: string, value: number): number {
  if (!Number.isInteger(value)) {
    throw new TypeError(`Invalid ${label} "${value}": expected an integer`);
  }
  return value;
}

/** Returns `count` when it is an integer of at least 0 (0 means all). */
export function checkNumResults(count: number): number {
  if (!(Number.isInteger(count) && count >= 0)) {
    throw new TypeError(
      `Invalid numResults "${count}": expected an integer of at least 0 (0 means all)`,
    );
  }
  return count;
}
