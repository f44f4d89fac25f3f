/**
 * The outbound (egress) proxy of the pooled client: which proxy, if any, a request
 * goes through, by the rules of Deno's `fetch` (its `ext/fetch/proxy.rs`), so that
 * the pooled client and `fetch` take the same way out.
 *
 * - `HTTP_PROXY` serves `http:` URLs, `HTTPS_PROXY` serves `https:` URLs; each
 *   upper-case variable wins over its lower-case form (read only when the upper-case
 *   one is unset), and `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set (a CGI
 *   request could otherwise choose the proxy through a `Proxy:` header).
 * - `NO_PROXY` (else `no_proxy`) lists hosts reached directly, comma-separated,
 *   blanks around entries ignored: an IP address (v4 or v6) or a CIDR range matches
 *   addresses; `*` matches every host; any other entry is a domain that matches
 *   itself and its subdomains, with or without a leading dot (`example.com` and
 *   `.example.com` both match `example.com` and `api.example.com`, not
 *   `notexample.com`). Entries are compared as written (URL hosts are lower case),
 *   ports are not part of an entry, and loopback is not exempt: `127.0.0.1` and
 *   `localhost` go through the proxy unless listed.
 *
 * This module parses the values; the settings layer reads them from the
 * environment (`lib/outbound_proxy_settings.ts`).
 *
 * @module
 */

/** A forward proxy: where it listens, and how it is named in messages. */
export interface ProxyServer {
  /** Its host name or address (an IPv6 address without brackets). */
  readonly hostname: string;
  /** Its port (80 when the URL names none). */
  readonly port: number;
  /** `Proxy-Authorization` value (`Basic ...`) when the URL holds credentials. */
  readonly authorization?: string;
  /** Its URL for messages and logs, credentials masked: `http://***@proxy:3128`. */
  readonly shown: string;
}

/** Hosts reached without the proxy (`NO_PROXY`). */
export interface NoProxy {
  /** The list as written. */
  readonly text: string;
  /** Addresses and ranges: the address's bytes and the prefix length in bits. */
  readonly networks: readonly { bytes: Uint8Array; bits: number }[];
  /** Domain entries, as written (a leading dot kept). */
  readonly domains: readonly string[];
}

/** The outbound proxy settings the pooled client is given. */
export interface OutboundProxy {
  /** The proxy of `http:` URLs (absolute-form requests). */
  readonly http?: ProxyServer;
  /** The proxy of `https:` URLs (a `CONNECT` tunnel, then TLS to the origin). */
  readonly https?: ProxyServer;
  /** Hosts reached directly. */
  readonly noProxy?: NoProxy;
}

/**
 * Parses a proxy URL as Deno's `fetch` reads `HTTP_PROXY`: `http://host:port`,
 * the scheme optional (`host:port` means `http://`), credentials as
 * `user:password@` (percent-decoded), any path ignored. Throws an `Error` saying
 * what was expected (without quoting the value, which may hold a password) for
 * another scheme (`https://`, `socks5://`: not supported by the pooled client) or
 * credentials without a colon.
 *
 * @example
 * ```ts
 * const proxy = parseProxyUrl("http://me:secret@127.0.0.1:3128");
 * proxy.shown; // "http://***@127.0.0.1:3128"
 * proxy.authorization; // "Basic bWU6c2VjcmV0"
 * ```
 */
export function parseProxyUrl(raw: string): ProxyServer {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
    ? text
    : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error("expected a proxy URL such as http://proxy.example:3128");
  }
  if (url.protocol !== "http:") {
    throw new Error(
      `expected an http:// proxy URL, not ${url.protocol}// (the pooled client speaks plain HTTP to its proxy)`,
    );
  }
  if (url.hostname === "") {
    throw new Error("expected a proxy URL with a host");
  }
  const authority = withScheme.slice(withScheme.indexOf("//") + 2)
    .split(/[/?#]/)[0]!;
  let authorization: string | undefined;
  if (authority.includes("@")) {
    if (!authority.slice(0, authority.lastIndexOf("@")).includes(":")) {
      throw new Error(
        "expected user:password@ before the proxy's host (the password is missing)",
      );
    }
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${base64(`${user}:${password}`)}`;
  }
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    authorization,
    shown: `http://${authorization === undefined ? "" : "***@"}${url.host}`,
  };
}

/**
 * Parses a `NO_PROXY` list (see the module's rules).
 *
 * @example
 * ```ts
 * const noProxy = parseNoProxy("127.0.0.1, .internal, 10.0.0.0/8");
 * noProxy.domains; // [".internal"]
 * ```
 */
export function parseNoProxy(raw: string): NoProxy {
  const networks: { bytes: Uint8Array; bits: number }[] = [];
  const domains: string[] = [];
  for (const part of raw.split(",").map((entry) => entry.trim())) {
    if (part === "") continue;
    const slash = part.indexOf("/");
    const address = ipBytes(slash < 0 ? part : part.slice(0, slash));
    const bits = slash < 0 ? address && address.length * 8 : Number(
      /^\d{1,3}$/.test(part.slice(slash + 1)) ? part.slice(slash + 1) : NaN,
    );
    if (address && bits !== undefined && bits <= address.length * 8) {
      networks.push({ bytes: address, bits });
    } else domains.push(part);
  }
  return { text: raw.trim(), networks, domains };
}

/**
 * The proxy `url` goes through, or `undefined` when it goes directly (no proxy for
 * its scheme, or its host in `NO_PROXY`).
 *
 * @example
 * ```ts
 * const proxy: OutboundProxy = {
 *   http: parseProxyUrl("http://127.0.0.1:3128"),
 *   noProxy: parseNoProxy("localhost"),
 * };
 * proxyFor(proxy, new URL("http://example.com/"))?.shown; // "http://127.0.0.1:3128"
 * proxyFor(proxy, new URL("http://localhost:8080/")); // undefined
 * ```
 */
export function proxyFor(
  proxy: OutboundProxy | undefined,
  url: URL,
): ProxyServer | undefined {
  if (proxy === undefined) return undefined;
  const server = url.protocol === "http:"
    ? proxy.http
    : url.protocol === "https:"
    ? proxy.https
    : undefined;
  if (server === undefined) return undefined;
  if (proxy.noProxy && bypasses(proxy.noProxy, url.hostname)) return undefined;
  return server;
}

/** Whether `NO_PROXY` lists `hostname` (a URL's, IPv6 in brackets). */
function bypasses(noProxy: NoProxy, hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  const address = ipBytes(host);
  if (address) {
    return noProxy.networks.some((network) =>
      network.bytes.length === address.length &&
      samePrefix(network.bytes, address, network.bits)
    );
  }
  for (const domain of noProxy.domains) {
    if (domain === "*" || domain === host || domain === `.${host}`) return true;
    if (
      host.endsWith(domain) &&
      (domain.startsWith(".") || host[host.length - domain.length - 1] === ".")
    ) return true;
  }
  return false;
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < a.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

/** The bytes of an IPv4 (4) or IPv6 (16) address, or `undefined`. */
function ipBytes(text: string): Uint8Array | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    // Leading zeros are refused, as Rust's parser (Deno's) refuses them.
    if (v4.slice(1).some((p) => p.length > 1 && p.startsWith("0"))) {
      return undefined;
    }
    return parts.every((p) => p <= 255) ? new Uint8Array(parts) : undefined;
  }
  if (!text.includes(":") || !/^[0-9a-f:.]+$/i.test(text)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://[${text}]/`).hostname;
  } catch {
    return undefined;
  }
  // The URL parser writes the address canonically: hex groups, one `::` at most.
  const [head = "", tail] = hostname.slice(1, -1).split("::");
  const groups = (part: string) => part === "" ? [] : part.split(":");
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [
    ...left,
    ...Array(8 - left.length - right.length).fill("0"),
    ...right,
  ];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
