/**
 * The escape checks of `resolveTarget` on the rest of a path (after the route's
 * name): raw or percent-encoded (up to three layers) `.` and `..` segments,
 * encoded slashes and backslashes, backslashes, `@`, empty segments, NUL,
 * overlong UTF-8 and malformed percent-encoding; and the shortcut for plain paths.
 *
 * @module
 */

/** How many layers of percent-encoding are unwrapped when looking for escapes. */
const DECODE_LAYERS = 3;

/**
 * Encoded bytes that start an overlong UTF-8 form (which old servers decode as the
 * character, "." included) or a lead byte no valid UTF-8 has: C0 and C1, E0 80-9F,
 * F0 80-8F, and F5 to FF (the old 5- and 6-byte forms).
 */
const OVERLONG_UTF8 = /%c[01]%|%e0%[89]|%f0%8|%f[5-9a-f]/i;

/**
 * A rest of a path that cannot escape: segments of unreserved characters (RFC 3986
 * 2.3) not starting with a dot, an optional trailing slash. Most paths are such;
 * they skip the checks of {@linkcode escapeProblem}.
 */
export const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/;

/**
 * Returns why the rest of a path could escape the base path, or `undefined`: the
 * full checks (every path that {@linkcode PLAIN_PATH} matches passes them).
 */
export function escapeProblem(rest: string): string | undefined {
  let layer = rest;
  for (let depth = 0; depth <= DECODE_LAYERS; depth++) {
    if (/%(2f|5c)/i.test(layer)) {
      return "it holds an encoded slash or backslash";
    }
    if (layer.includes("\\")) return "it holds a backslash";
    if (/%00|\0/.test(layer)) return "it holds a NUL byte (%00)";
    // Old servers decode an overlong form as the character: %c0%ae as ".".
    if (OVERLONG_UTF8.test(layer)) {
      return "it holds an overlong or invalid UTF-8 sequence";
    }
    if (layer.includes("@")) return "it holds an @";
    if (layer.includes("//")) return "it holds an empty segment (//)";
    if (layer.split("/").some(isDotSegment)) {
      return "it holds a . or .. segment";
    }
    if (!layer.includes("%")) return undefined;
    const decoded = percentDecode(layer);
    if (decoded === undefined) return "it holds malformed percent-encoding";
    if (decoded === layer) return undefined;
    layer = decoded;
  }
  return "it is percent-encoded too many times";
}

/** `.` and `..`, also with a `;parameter` some servers strip (`..;/`). */
function isDotSegment(segment: string): boolean {
  // URL parsers drop tabs and newlines, so ".\t." would become "..".
  const bare = segment.split(";")[0]?.replace(/[\t\n\r]/g, "");
  return bare === "." || bare === "..";
}

/** Decodes `%XX` runs as UTF-8 (lossy); `undefined` when a `%` starts no `%XX`. */
function percentDecode(text: string): string | undefined {
  if (/%(?![0-9a-f]{2})/i.test(text)) return undefined;
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    const bytes = run.slice(1).split("%").map((hex) => parseInt(hex, 16));
    return new TextDecoder().decode(new Uint8Array(bytes));
  });
}
