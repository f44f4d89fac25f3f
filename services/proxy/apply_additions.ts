/**
 * Puts a route's additions on its upstream requests (parameters into the query, headers
 * into the request, the client's of the same name replaced) and keeps the added
 * values out of what goes back: `Location` and `Content-Location` lose the added
 * parameters, other response headers and log lines have the values blanked.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { RelayAdditions } from "./relay.ts";
import type { AdditionsByRoute, RouteAdditions } from "./route_additions.ts";

/** What stands in for a secret removed from a header or a log line. */
export const REDACTED = "REDACTED";

/**
 * Shorter values are not blanked in response headers and log lines: they would match
 * unrelated text (a `1` in every length); such a value is no secret anyway.
 */
const MIN_SECRET_LENGTH = 4;

/** Response headers that frame the body: never rewritten. */
const FRAMING = new Set([
  "content-length",
  "transfer-encoding",
  "content-type",
]);

/** Applies {@linkcode AdditionsByRoute} to upstream requests and scrubs what comes back. */
export interface AdditionsApplier {
  /** The additions of the route named `route`, if it has any. */
  of(route: string): RouteAdditions | undefined;
  /**
   * A raw query (`""`, or `?` and the client's parameters) with the route's
   * parameters set, replacing the client's of the same (form-decoded) name; the
   * client's other parameters keep their raw form. `resolveTarget` parses the
   * target once, with them.
   */
  query(additions: RouteAdditions, query: string): string;
  /**
   * The value of header `name` (lower case) as the upstream gets it: the route's,
   * or else the client's.
   */
  header(
    additions: RouteAdditions | undefined,
    request: Request,
    name: string,
  ): string | null;
  /**
   * What the relay does to the calls of the route named `route`, if it has
   * additions: its headers set on the upstream request, replacing the client's of the
   * same name, and the added parameters removed from `Location` and
   * `Content-Location` of the response, every added value blanked in its other
   * headers. Worked out once per route.
   */
  relayed(route: string): RelayAdditions | undefined;
  /** `text` with every added value of every route blanked. */
  scrub(text: string): string;
  /** A log that blanks every added value of every route in its lines. */
  log(log: Log): Log;
}

/**
 * Returns the applier of `additions`.
 *
 * @example
 * ```ts
 * import { readRouteAdditions } from "./route_additions.ts";
 * import { parseRoutes } from "./routes.ts";
 *
 * const routes = parseRoutes("weather=https://api.openweathermap.org/data/2.5");
 * const env = { PROXY_ROUTE_WEATHER_QUERY: "appid=KEY" };
 * const applier = createAdditionsApplier(readRouteAdditions(env, routes).additions);
 * const added = applier.of("weather");
 * if (added) applier.query(added, "?q=Madrid"); // "?q=Madrid&appid=KEY"
 * ```
 */
export function createAdditionsApplier(
  additions: AdditionsByRoute,
): AdditionsApplier {
  const forms = secretForms([...additions.values()]);
  const anyForm = anyOf(forms);
  const scrub = (text: string) =>
    anyForm?.test(text) ? blank(text, forms) : text;
  // Worked out once per route: the query to add and the names it replaces.
  const queries = new Map(
    [...additions.values()].map((added) => [added, {
      names: new Set(added.query.map(([name]) => name)),
      extra: new URLSearchParams(added.query as [string, string][]).toString(),
    }]),
  );
  const addQuery = (added: RouteAdditions, raw: string) => {
    const query = queries.get(added);
    if (query === undefined || added.query.length === 0) return raw;
    const kept = withoutParams(raw.slice(1), query.names);
    return `?${kept === "" ? query.extra : `${kept}&${query.extra}`}`;
  };
  const relayed = new Map(
    [...additions].map(([route, added]) => [route, relayAdditions(added)]),
  );
  return {
    of: (route) => additions.get(route),
    query: addQuery,
    header(added, request, name) {
      if (added !== undefined) {
        for (const [own, value] of added.headers) {
          if (own === name) return value;
        }
      }
      return request.headers.get(name);
    },
    relayed: (route) => relayed.get(route),
    scrub,
    log: (log) => ({
      enabled: log.enabled?.bind(log),
      debug: (message) => log.debug(scrub(message)),
      info: (message) => log.info(scrub(message)),
      warn: (message) => log.warn(scrub(message)),
      error: (message) => log.error(scrub(message)),
    }),
  };
}

/**
 * Every form an added value may take in text: as is, and percent- or form-encoded
 * (hex digits in either case, RFC 3986 2.1), as patterns.
 */
function secretForms(all: readonly RouteAdditions[]): RegExp[] {
  const forms = new Set<string>();
  for (const added of all) {
    for (const [, value] of [...added.query, ...added.headers]) {
      if (value.length < MIN_SECRET_LENGTH) continue;
      forms.add(value);
      forms.add(encodeURIComponent(value));
      forms.add(new URLSearchParams({ v: value }).toString().slice(2));
    }
  }
  // Longest first, so a value holding another is blanked whole.
  return [...forms].sort((a, b) => b.length - a.length).map((form) =>
    new RegExp(
      form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(
        /%([0-9A-F])([0-9A-F])/g,
        (_, high: string, low: string) =>
          `%[${high}${high.toLowerCase()}][${low}${low.toLowerCase()}]`,
      ),
      "g",
    )
  );
}

/**
 * One pattern matching wherever one of `forms` does: most texts hold none, and one
 * test is cheaper than a replace per form.
 */
function anyOf(forms: readonly RegExp[]): RegExp | undefined {
  if (forms.length === 0) return undefined;
  return new RegExp(forms.map((form) => form.source).join("|"));
}

function blank(text: string, forms: readonly RegExp[]): string {
  let out = text;
  for (const form of forms) out = out.replace(form, REDACTED);
  return out;
}

/** A raw query without the parameters whose form-decoded name is in `names`. */
function withoutParams(query: string, names: ReadonlySet<string>): string {
  if (query === "") return "";
  return query.split("&").filter((part) => {
    if (part === "") return false;
    const equals = part.indexOf("=");
    return !names.has(formDecode(equals < 0 ? part : part.slice(0, equals)));
  }).join("&");
}

/** A URL (absolute, or a path) without the parameters named in `names`. */
function withoutParamsInUrl(value: string, names: ReadonlySet<string>): string {
  const question = value.indexOf("?");
  if (question < 0 || names.size === 0) return value;
  const hash = value.indexOf("#", question);
  const end = hash < 0 ? value.length : hash;
  const kept = withoutParams(value.slice(question + 1, end), names);
  return `${value.slice(0, question)}${kept === "" ? "" : `?${kept}`}${
    value.slice(end)
  }`;
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/**
 * The relay's side of `added`. Both work on header pairs: a `Headers` copy of the
 * client's, and a walk of the response's `Headers`, cost several times more per call.
 */
function relayAdditions(added: RouteAdditions): RelayAdditions {
  const forms = secretForms([added]);
  const any = anyOf(forms);
  const params = new Set(added.query.map(([name]) => name));
  const headerNames = new Set(added.headers.map(([name]) => name));
  const scrubbed = (name: string, value: string) => {
    const kept = name === "location" || name === "content-location"
      ? withoutParamsInUrl(value, params)
      : value;
    return any?.test(kept) ? blank(kept, forms) : kept;
  };
  return {
    request(pairs) {
      // The client's Connection was applied before: it cannot drop these.
      if (added.headers.length === 0) return pairs;
      const sent = pairs.filter(([name]) => !headerNames.has(name));
      for (const [name, value] of added.headers) sent.push([name, value]);
      return sent;
    },
    response(pairs) {
      if (hasRepeats(pairs)) return scrubbedJoined(pairs, scrubbed);
      let out: [string, string][] | undefined;
      for (let i = 0; i < pairs.length; i++) {
        const [name, value] = pairs[i]!;
        if (FRAMING.has(name)) continue;
        const changed = scrubbed(name, value);
        if (changed === value) continue;
        out ??= pairs.slice();
        out[i] = [name, changed];
      }
      return out ?? pairs;
    },
  };
}

/** Whether a header name comes more than once in `pairs`. */
function hasRepeats(pairs: readonly [string, string][]): boolean {
  if (pairs.length > 16) {
    return new Set(pairs.map(([name]) => name)).size < pairs.length;
  }
  for (let i = 1; i < pairs.length; i++) {
    for (let j = 0; j < i; j++) {
      if (pairs[i]![0] === pairs[j]![0]) return true;
    }
  }
  return false;
}

/**
 * `pairs` scrubbed as a `Headers` would show them: a repeated header as one value
 * joined with `, ` (a secret may straddle two of its lines). When that changes, the
 * scrubbed value replaces all of them, in the place of the first.
 */
function scrubbedJoined(
  pairs: [string, string][],
  scrubbed: (name: string, value: string) => string,
): [string, string][] {
  const values = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    if (FRAMING.has(name)) continue;
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  const replaced = new Map<string, string>();
  for (const [name, list] of values) {
    const joined = list.join(", ");
    const changed = scrubbed(name, joined);
    if (changed !== joined) replaced.set(name, changed);
  }
  if (replaced.size === 0) return pairs;
  const out: [string, string][] = [];
  const placed = new Set<string>();
  for (const pair of pairs) {
    const changed = replaced.get(pair[0]);
    if (changed === undefined) out.push(pair);
    else if (!placed.has(pair[0])) {
      placed.add(pair[0]);
      out.push([pair[0], changed]);
    }
  }
  return out;
}
