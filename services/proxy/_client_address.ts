/**
 * Who a request counts against for the rate limits: its client's address, or, from a
 * trusted reverse proxy, the first untrusted address of its `X-Forwarded-For` (or
 * `Forwarded`); or its `Origin` when the limits count per origin.
 *
 * @module
 */
import {
  type AddressRange,
  inRange,
  isMappedIpv4,
  parseAddress,
} from "./trusted_proxies.ts";

/** Returns the key a request is counted under, given the address it came from. */
export type ClientKey = (request: Request, peer: string | undefined) => string;

/** Options of {@linkcode createClientKey}. */
export interface ClientKeyOptions {
  /** The reverse proxies whose forwarding headers are believed. @default none */
  trusted?: readonly AddressRange[];
  /** Count per client address, or per `Origin` (address without one). @default "address" */
  by?: "address" | "origin";
}

/**
 * Returns the function that names a request's client. Addresses are normalised: an
 * IPv4 address mapped into IPv6 is written as IPv4, and an IPv6 address stands for
 * its /64 network (one host is commonly given a whole /64).
 */
export function createClientKey(options: ClientKeyOptions = {}): ClientKey {
  const trusted = options.trusted ?? [];
  const isTrusted = (bytes: Uint8Array) =>
    trusted.some((range) => inRange(bytes, range));
  const address = (request: Request, peer: string | undefined): string => {
    if (peer === undefined) return "unknown";
    if (trusted.length === 0) return normalised(peer);
    const peerBytes = parseAddress(peer);
    if (peerBytes === undefined || !isTrusted(peerBytes)) {
      return normalised(peer);
    }
    const chain = forwardedFor(request.headers);
    for (let i = chain.length - 1; i >= 0; i--) {
      const entry = chain[i]!;
      const bytes = parseAddress(entry);
      if (bytes === undefined) return entry.slice(0, 100) || "unknown";
      if (!isTrusted(bytes) || i === 0) return keyOf(bytes);
    }
    return keyOf(peerBytes);
  };
  if (options.by !== "origin") return address;
  return (request, peer) => {
    const origin = request.headers.get("origin");
    return origin === null ? address(request, peer) : `origin ${origin}`;
  };
}

/** The key of an address as Deno gives it. */
function normalised(peer: string): string {
  // The common case: an IPv4 address, as is.
  if (!peer.includes(":")) return peer;
  const bytes = parseAddress(peer);
  return bytes === undefined ? peer : keyOf(bytes);
}

/** IPv4 dotted, IPv6 as its /64. */
function keyOf(bytes: Uint8Array): string {
  if (isMappedIpv4(bytes)) return bytes.subarray(12).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) {
    groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  }
  return `${groups.join(":")}::/64`;
}

/**
 * The addresses of `X-Forwarded-For`, or else of `Forwarded`'s `for=`, in order
 * (client first), without brackets, quotes and ports.
 */
export function forwardedFor(headers: Headers): string[] {
  const xff = headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",").map(bare);
  const forwarded = headers.get("forwarded");
  if (forwarded === null) return [];
  const found: string[] = [];
  for (const element of forwarded.split(",")) {
    for (const pair of element.split(";")) {
      const equals = pair.indexOf("=");
      if (pair.slice(0, equals).trim().toLowerCase() === "for") {
        found.push(bare(pair.slice(equals + 1)));
      }
    }
  }
  return found;
}

/** An address without quotes, brackets or port. */
function bare(value: string): string {
  let text = value.trim().replace(/^"(.*)"$/, "$1");
  if (text.startsWith("[")) return text.slice(1, text.indexOf("]") >>> 0);
  // a.b.c.d:port (an IPv6 address without brackets has more than one colon)
  const colon = text.indexOf(":");
  if (colon >= 0 && colon === text.lastIndexOf(":")) {
    text = text.slice(0, colon);
  }
  return text;
}
