/**
 * Per-route additions: query parameters (`PROXY_ROUTE_<NAME>_QUERY`) and headers
 * (`PROXY_ROUTE_<NAME>_HEADERS`) the proxy adds to every call of a route, so a
 * browser page can use an API key it never holds. Each may also be read from a file
 * (`..._QUERY_FILE`, `..._HEADERS_FILE`). The values are secrets: no message here
 * quotes them.
 *
 * @module
 */
import { HOP_BY_HOP } from "./_headers.ts";
import type { Env } from "../../lib/settings.ts";
import type { ProxyRoute } from "./routes.ts";

/** What the proxy adds to every upstream request of one route. */
export interface RouteAdditions {
  /** Query parameters, decoded names and values, in order. */
  readonly query: readonly (readonly [string, string])[];
  /** Headers, names in lower case, in order. */
  readonly headers: readonly (readonly [string, string])[];
}

/** The additions of the routes that have some, by route name. */
export type AdditionsByRoute = ReadonlyMap<string, RouteAdditions>;

/** The two kinds of addition, as they end their variable's name. */
const KINDS = ["QUERY", "HEADERS"] as const;

/** Prefix of every addition variable. */
const PREFIX = "PROXY_ROUTE_";

/** One header name character of RFC 9110's `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Control characters but tab (a header value or a query cannot hold them). */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Headers the proxy manages itself, which a route cannot set: framing and hop-by-hop
 * headers, `Host`, `Via`, the cookies it never passes on, `Expect` and
 * `Accept-Encoding` (its client negotiates its own codings).
 */
const MANAGED = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "via",
  "cookie",
  "cookie2",
  "expect",
  "accept-encoding",
]);

/**
 * The part of a route's variable names after `PROXY_ROUTE_`: the route name in upper
 * case, with `-`, `.` and `~` as `_` (`open-weather` gives `OPEN_WEATHER`).
 *
 * @example
 * ```ts
 * routeVariableStem("open-weather"); // "OPEN_WEATHER"
 * ```
 */
export function routeVariableStem(name: string): string {
  return name.toUpperCase().replace(/[-.~]/g, "_");
}

/** What {@linkcode readRouteAdditions} found. */
export interface AdditionsReading {
  /** The additions of every route that has some. */
  additions: AdditionsByRoute;
  /** One sentence per problem, each naming its variable, never quoting its value. */
  problems: string[];
}

/**
 * Reads the additions of `routes` from `env`: for each route NAME,
 * `PROXY_ROUTE_<NAME>_QUERY` (form-encoded, `appid=KEY&units=metric`) and
 * `PROXY_ROUTE_<NAME>_HEADERS` (a JSON object, `{"X-Api-Key": "KEY"}`), or their
 * `_FILE` twins naming a file that holds the value. An empty variable is unset. A
 * setting and its twin together, a variable naming no route, one named by two
 * routes, a malformed value or an unreadable file is a problem.
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const { additions, problems } = readRouteAdditions(
 *   { PROXY_ROUTE_WEATHER_QUERY: "appid=KEY" },
 *   parseRoutes("weather=https://api.openweathermap.org/data/2.5"),
 * );
 * additions.get("weather")?.query; // [["appid", "KEY"]]
 * ```
 */
export function readRouteAdditions(
  env: Env,
  routes: readonly ProxyRoute[],
  readTextFile: (path: string) => string = Deno.readTextFileSync,
): AdditionsReading {
  const problems: string[] = [];
  const additions = new Map<string, RouteAdditions>();
  const owners = new Map<string, string[]>();
  for (const route of routes) {
    const stem = routeVariableStem(route.name);
    owners.set(stem, [...owners.get(stem) ?? [], route.name]);
  }
  const set = (name: string) => (env[name]?.trim() ?? "") !== "";
  // Variables of this kind whose name matches no route.
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith(PREFIX) || !set(name)) continue;
    const kind = KINDS.find((k) =>
      name.endsWith(`_${k}`) || name.endsWith(`_${k}_FILE`)
    );
    if (kind === undefined) continue;
    const stem = name.slice(PREFIX.length, name.lastIndexOf(`_${kind}`));
    if (!owners.has(stem)) {
      problems.push(
        `Invalid ${name}: it names no route of PROXY_ROUTES (route NAME is read from PROXY_ROUTE_<NAME>_${kind}, NAME in upper case with - . ~ as _): fix the name or register the route`,
      );
    }
  }
  for (const route of routes) {
    const stem = routeVariableStem(route.name);
    const read: Partial<Record<typeof KINDS[number], string>> = {};
    for (const kind of KINDS) {
      const name = `${PREFIX}${stem}_${kind}`;
      const file = `${name}_FILE`;
      if (!set(name) && !set(file)) continue;
      const sharing = owners.get(stem) ?? [];
      if (sharing.length > 1) {
        // Reported once, by the first of the routes.
        if (sharing[0] === route.name) {
          const named = sharing.map((n) => `"${n}"`).join(" and ");
          problems.push(
            `Invalid ${
              set(name) ? name : file
            }: routes ${named} both map to it: rename one of them`,
          );
        }
        continue;
      }
      if (set(name) && set(file)) {
        problems.push(
          `Invalid ${name}: ${file} is set too: set one of them, not both`,
        );
        continue;
      }
      const value = set(name)
        ? env[name]!.trim()
        : readSecretFile(file, env[file]!.trim(), readTextFile, problems);
      if (value !== undefined) read[kind] = value;
    }
    if (read.QUERY === undefined && read.HEADERS === undefined) continue;
    const query = read.QUERY === undefined
      ? []
      : parseQuery(read.QUERY, variableOf(env, stem, "QUERY"), problems);
    const headers = read.HEADERS === undefined
      ? []
      : parseHeaders(read.HEADERS, variableOf(env, stem, "HEADERS"), problems);
    if (query.length > 0 || headers.length > 0) {
      additions.set(route.name, Object.freeze({ query, headers }));
    }
  }
  return { additions, problems };
}

/** The variable a value of `kind` came from, for messages. */
function variableOf(env: Env, stem: string, kind: string): string {
  const name = `${PREFIX}${stem}_${kind}`;
  return (env[name]?.trim() ?? "") !== "" ? name : `${name}_FILE`;
}

/** The contents of a `_FILE` variable's file, trimmed; `undefined` after a problem. */
function readSecretFile(
  variable: string,
  path: string,
  readTextFile: (path: string) => string,
  problems: string[],
): string | undefined {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "it does not exist"
      : error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : "it cannot be read as text";
    problems.push(`Invalid ${variable}: cannot read file "${path}": ${why}`);
    return undefined;
  }
  const value = text.trim();
  if (value === "") {
    problems.push(`Invalid ${variable}: file "${path}" is empty`);
    return undefined;
  }
  return value;
}

/** Parses form-encoded parameters; `[]` after a problem. */
function parseQuery(
  raw: string,
  variable: string,
  problems: string[],
): readonly (readonly [string, string])[] {
  const problem = CONTROL.test(raw)
    ? "it holds a control character (a line break?): write the parameters on one line"
    : raw.split("&").some((part) => part.startsWith("="))
    ? "a parameter has no name: expected name=value pairs joined by &, form-encoded (appid=KEY&units=metric)"
    : /%(?![0-9A-Fa-f]{2})/.test(raw)
    ? "a % is not followed by two hex digits: write a percent sign as %25 (the value is form-encoded)"
    : undefined;
  if (problem !== undefined) {
    problems.push(`Invalid ${variable}: ${problem}`);
    return [];
  }
  const pairs = [...new URLSearchParams(raw.replace(/^\?/, ""))];
  if (pairs.length === 0) {
    problems.push(
      `Invalid ${variable}: it holds no parameter: expected name=value pairs joined by & (appid=KEY&units=metric)`,
    );
    return [];
  }
  return Object.freeze(pairs.map((pair) => Object.freeze(pair)));
}

/** Parses a JSON object of headers; `[]` after a problem. */
function parseHeaders(
  raw: string,
  variable: string,
  problems: string[],
): readonly (readonly [string, string])[] {
  const expected =
    'expected a JSON object of header names and string values ({"X-Api-Key": "KEY"})';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // JSON.parse's message quotes the text: not repeated.
    problems.push(`Invalid ${variable}: it is not valid JSON: ${expected}`);
    return [];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    problems.push(`Invalid ${variable}: ${expected}`);
    return [];
  }
  const entries = Object.entries(parsed);
  if (entries.length === 0) {
    problems.push(`Invalid ${variable}: it holds no header: ${expected}`);
    return [];
  }
  const headers: (readonly [string, string])[] = [];
  const before = problems.length;
  entries.forEach(([name, value], index) => {
    // Positions, not names: the names are part of the secret value.
    const which = `header ${index + 1} of ${entries.length}`;
    if (!TOKEN.test(name)) {
      problems.push(
        `Invalid ${variable}: the name of ${which} is not a token (letters, digits and !#$%&'*+-.^_\`|~ only)`,
      );
    } else if (MANAGED.has(name.toLowerCase())) {
      problems.push(
        `Invalid ${variable}: ${which} is one the proxy manages itself (${
          [...MANAGED].join(", ")
        }) and cannot be set`,
      );
    } else if (typeof value !== "string") {
      problems.push(
        `Invalid ${variable}: the value of ${which} is not a string`,
      );
    } else if (CONTROL.test(value) || value.trim() !== value) {
      problems.push(
        `Invalid ${variable}: the value of ${which} holds a control character or starts or ends with a space`,
      );
    } else if (headers.some(([n]) => n === name.toLowerCase())) {
      problems.push(
        `Invalid ${variable}: ${which} repeats an earlier name (names are case-insensitive)`,
      );
    } else {
      headers.push(Object.freeze([name.toLowerCase(), value] as const));
    }
  });
  return problems.length > before ? [] : Object.freeze(headers);
}
