/**
 * Puts a route's additions on its remote calls (parameters into the query, headers
 * into the request, the caller's of the same name replaced) and keeps the added
 * values out of what goes back: `Location` and `Content-Location` lose the added
 * parameters, other answer headers and log lines have the values blanked.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { AdditionsByRoute, RouteAdditions } from "./route_additions.ts";

/** What stands in for a secret removed from a header or a log line. */
export const REDACTED = "REDACTED";

/**
 * Shorter values are not blanked in answer headers and log lines: they would match
 * unrelated text (a `1` in every length); such a value is no secret anyway.
 */
const MIN_SECRET_LENGTH = 4;

/** Answer headers that frame the body: never rewritten. */
const FRAMING = new Set([
  "content-length",
  "transfer-encoding",
  "content-type",
]);

/** Applies {@linkcode AdditionsByRoute} to remote calls and scrubs what comes back. */
export interface AdditionsApplier {
  /** The additions of the route named `route`, if it has any. */
  of(route: string): RouteAdditions | undefined;
  /**
   * `target` with the route's parameters set, replacing the caller's of the same
   * (form-decoded) name; the caller's other parameters keep their raw form.
   */
  target(additions: RouteAdditions, target: URL): URL;
  /** {@linkcode target} as a string, without parsing it again (cheaper). */
  targetHref(additions: RouteAdditions, target: URL): string;
  /**
   * The value of header `name` (lower case) as the remote gets it: the route's,
   * or else the caller's.
   */
  header(
    additions: RouteAdditions | undefined,
    request: Request,
    name: string,
  ): string | null;
  /**
   * `request` with the route's headers set, replacing the caller's of the same
   * name: a view of it for the relay (method, URL, headers, body, signal), not a
   * whole `Request`.
   */
  request(additions: RouteAdditions, request: Request): Request;
  /**
   * The answer with the added parameters removed from `Location` and
   * `Content-Location`, and every added value blanked in its other headers.
   */
  answer(additions: RouteAdditions, response: Response): Response;
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
 * const applier = createAdditionsApplier(readRouteAdditions(env, routes).additions);
 * const added = applier.of("weather");
 * if (added) target = applier.target(added, target);
 * ```
 */
export function createAdditionsApplier(
  additions: AdditionsByRoute,
): AdditionsApplier {
  const forms = secretForms([...additions.values()]);
  const scrub = (text: string) => blank(text, forms);
  const formsOf = new Map(
    [...additions.values()].map((added) => [added, secretForms([added])]),
  );
  // Worked out once per route: the query to add and the names it replaces.
  const queries = new Map(
    [...additions.values()].map((added) => [added, {
      names: new Set(added.query.map(([name]) => name)),
      extra: new URLSearchParams(added.query as [string, string][]).toString(),
    }]),
  );
  const headerNames = new Map(
    [...additions.values()].map((
      added,
    ) => [added, new Set(added.headers.map(([name]) => name))]),
  );
  const targetHref = (added: RouteAdditions, target: URL) => {
    const query = queries.get(added);
    if (query === undefined || added.query.length === 0) return target.href;
    const kept = withoutParams(target.search.slice(1), query.names);
    return `${target.origin}${target.pathname}?${
      kept === "" ? query.extra : `${kept}&${query.extra}`
    }`;
  };
  return {
    of: (route) => additions.get(route),
    target: (added, target) =>
      added.query.length === 0 ? target : new URL(targetHref(added, target)),
    targetHref,
    header(added, request, name) {
      if (added !== undefined) {
        for (const [own, value] of added.headers) {
          if (own === name) return value;
        }
      }
      return request.headers.get(name);
    },
    request(added, request) {
      if (added.headers.length === 0) return request;
      const names = headerNames.get(added)!;
      // Appended one by one into a fresh Headers: copying the caller's whole and
      // building a new Request cost several times more, per call.
      const headers = new Headers();
      for (const [name, value] of request.headers) {
        if (names.has(name)) continue;
        if (name !== "connection") {
          headers.append(name, value);
          continue;
        }
        // A caller's Connection naming an added header would have it dropped.
        const kept = value.split(",").map((token) => token.trim())
          .filter((token) => token && !names.has(token.toLowerCase()));
        if (kept.length > 0) headers.append(name, kept.join(", "));
      }
      for (const [name, value] of added.headers) headers.append(name, value);
      return relayedRequest(request, headers);
    },
    answer(added, response) {
      const own = formsOf.get(added) ?? [];
      const names = new Set(added.query.map(([name]) => name));
      const changes: [string, string][] = [];
      for (const [name, value] of response.headers) {
        if (FRAMING.has(name)) continue;
        let scrubbed = name === "location" || name === "content-location"
          ? withoutParamsInUrl(value, names)
          : value;
        scrubbed = blank(scrubbed, own);
        if (scrubbed !== value) changes.push([name, scrubbed]);
      }
      if (changes.length === 0) return response;
      return withHeaders(response, changes);
    },
    scrub,
    log: (log) => ({
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
 * What the relay reads of a request (method, URL, headers, body, signal), with
 * `headers` in place of the caller's. The relay takes a `Request`; building a real
 * one around the caller's body costs more than the rest of a call's own work.
 */
function relayedRequest(request: Request, headers: Headers): Request {
  const view = {
    method: request.method,
    headers,
    get url() {
      return request.url;
    },
    get body() {
      return request.body;
    },
    get bodyUsed() {
      return request.bodyUsed;
    },
    get signal() {
      return request.signal;
    },
  };
  return view as unknown as Request;
}

/** `response` with the given headers replaced (in place when they are mutable). */
function withHeaders(
  response: Response,
  changes: readonly [string, string][],
): Response {
  try {
    for (const [name, value] of changes) response.headers.set(name, value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const [name, value] of changes) headers.set(name, value);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
