/**
 * `PROXY_REQUIRE_HEADER`: relayed requests must carry at least one of the listed
 * headers (`origin,x-requested-with`), as cors-anywhere's `requireHeader` does, so
 * the proxy cannot be used for casual browsing or hot-linking.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

/** One header name character of RFC 9110's `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Reads a comma-separated list of header names (lower-cased). Throws an `Error`
 * naming each entry that is not a header name.
 *
 * @example
 * ```ts
 * parseHeaderNames("Origin, X-Requested-With"); // ["origin", "x-requested-with"]
 * ```
 */
export function parseHeaderNames(raw: string): readonly string[] {
  const names: string[] = [];
  const problems: string[] = [];
  for (const entry of raw.split(",").map((item) => item.trim())) {
    if (entry === "") continue;
    if (!TOKEN.test(entry)) problems.push(`"${entry}" is not a header name`);
    else if (!names.includes(entry.toLowerCase())) {
      names.push(entry.toLowerCase());
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `expected header names, comma-separated: ${problems.join("; ")}`,
    );
  }
  return Object.freeze(names);
}

/**
 * A setting holding a list of header names.
 *
 * @example
 * ```ts
 * const schema = {
 *   PROXY_REQUIRE_HEADER: headerNames({ description: "Required headers", default: [] }),
 * };
 * ```
 */
export function headerNames(
  options: { description: string; default: readonly string[] },
): Setting<readonly string[]> {
  return custom<readonly string[]>(
    options,
    parseHeaderNames,
    (value) => value.length === 0 ? "none" : value.join(","),
  );
}

/**
 * Returns the check of `names`: the 403 response (with `headers`) to a request that
 * carries none of them, or `undefined`.
 *
 * @example
 * ```ts
 * const check = requireHeader(["origin", "x-requested-with"], {});
 * check(new Request("http://proxy/api/x"))?.status; // 403
 * ```
 */
export function requireHeader(
  names: readonly string[],
  headers: Record<string, string>,
): (request: Request) => Response | undefined {
  const message = `The request carries none of the headers ${
    names.join(", ")
  }, which PROXY_REQUIRE_HEADER requires: a page calls the proxy with fetch(), not as a link`;
  return (request) => {
    for (const name of names) if (request.headers.has(name)) return undefined;
    return Response.json({ message }, { status: 403, headers });
  };
}
