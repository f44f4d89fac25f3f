/**
 * The outbound proxy's settings: `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (and
 * their lower-case forms), read once at the edge by the roles whose pooled client
 * goes out (the proxy and the forwarder), with the precedence of Deno's `fetch`
 * (`lib/http1/outbound_proxy.ts` has the rules).
 *
 * @module
 */
import {
  type OutboundProxy,
  parseNoProxy,
  parseProxyUrl,
} from "./http1/outbound_proxy.ts";
import { custom, type Env, optional, type SettingsOf } from "./settings.ts";

const proxyUrl = (description: string) =>
  optional(
    custom(
      { description, secret: true, secretPart: "credentials" },
      parseProxyUrl,
    ),
  );
const noProxy = (description: string) =>
  optional(custom({ description }, parseNoProxy));

/**
 * The outbound proxy's variables, to spread into a role's settings.
 *
 * @example
 * ```ts
 * import { parseSettings } from "./settings.ts";
 *
 * const settings = parseSettings(outboundProxySettings, {
 *   HTTPS_PROXY: "http://127.0.0.1:3128",
 * });
 * settings.HTTPS_PROXY?.port; // 3128
 * ```
 */
export const outboundProxySettings = {
  HTTP_PROXY: proxyUrl(
    "Forward proxy for http:// upstreams (http://[user:password@]host:port; the credentials go as Proxy-Authorization, never logged). Ignored when REQUEST_METHOD is set (CGI)",
  ),
  http_proxy: proxyUrl("Read when HTTP_PROXY is unset"),
  HTTPS_PROXY: proxyUrl(
    "Forward proxy for https:// upstreams, reached through its CONNECT tunnel (http://[user:password@]host:port)",
  ),
  https_proxy: proxyUrl("Read when HTTPS_PROXY is unset"),
  NO_PROXY: noProxy(
    "Hosts reached without the proxy, comma-separated: addresses, CIDR ranges (10.0.0.0/8), domains with their subdomains (example.com, .example.com), * for all. Loopback is not exempt",
  ),
  no_proxy: noProxy("Read when NO_PROXY is unset"),
};

/** The parsed values of {@linkcode outboundProxySettings}. */
export type OutboundProxySettings = SettingsOf<typeof outboundProxySettings>;

/**
 * The outbound proxy the settings describe, for `createHttp1Client({ proxy })`, or
 * `undefined` when neither proxy variable is set. `env` is the whole environment
 * (`HTTP_PROXY` is ignored when `REQUEST_METHOD` is set, as Deno's `fetch` does).
 *
 * @example
 * ```ts
 * import { parseSettings } from "./settings.ts";
 *
 * const env = { http_proxy: "127.0.0.1:3128", NO_PROXY: "localhost" };
 * const proxy = outboundProxyOf(parseSettings(outboundProxySettings, env), env);
 * proxy?.http?.shown; // "http://127.0.0.1:3128"
 * ```
 */
export function outboundProxyOf(
  settings: OutboundProxySettings,
  env: Env,
): OutboundProxy | undefined {
  const http = env.REQUEST_METHOD === undefined
    ? settings.HTTP_PROXY ?? settings.http_proxy
    : undefined;
  const https = settings.HTTPS_PROXY ?? settings.https_proxy;
  if (http === undefined && https === undefined) return undefined;
  return { http, https, noProxy: settings.NO_PROXY ?? settings.no_proxy };
}

/**
 * One line for the start-up log: which proxy each scheme goes through, credentials
 * masked, and the hosts reached directly.
 *
 * @example
 * ```ts
 * import { parseProxyUrl } from "./http1/outbound_proxy.ts";
 *
 * outboundProxyText({ https: parseProxyUrl("http://me:pw@10.0.0.1:3128") });
 * // "outbound proxy: https:// through http://***@10.0.0.1:3128"
 * ```
 */
export function outboundProxyText(proxy: OutboundProxy): string {
  const ways = [
    ...(proxy.http ? [`http:// through ${proxy.http.shown}`] : []),
    ...(proxy.https ? [`https:// through ${proxy.https.shown}`] : []),
  ];
  return `outbound proxy: ${ways.join(", ")}${
    proxy.noProxy ? `; directly: ${proxy.noProxy.text}` : ""
  }`;
}
