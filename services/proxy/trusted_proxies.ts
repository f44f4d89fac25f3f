/**
 * `PROXY_TRUSTED_PROXIES`: the addresses or CIDR ranges (IPv4 and IPv6) of the
 * reverse proxies in front of this one, whose `X-Forwarded-For` or `Forwarded` is
 * believed.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

/** An address range: the first `bits` bits of `bytes` (16 bytes, IPv4 mapped). */
export interface AddressRange {
  /** The address, 16 bytes (an IPv4 address as `::ffff:a.b.c.d`). */
  readonly bytes: Uint8Array;
  /** How many leading bits must match. */
  readonly bits: number;
}

/**
 * The 16 bytes of an IPv4 or IPv6 address (IPv4 as `::ffff:a.b.c.d`), or `undefined`
 * when `text` is not one. Brackets and an IPv6 zone are not accepted.
 *
 * @example
 * ```ts
 * parseAddress("10.0.0.1")?.length; // 16
 * parseAddress("example.com"); // undefined
 * ```
 */
export function parseAddress(text: string): Uint8Array | undefined {
  if (!text.includes(":")) {
    const v4 = ipv4(text);
    if (v4 === undefined) return undefined;
    const bytes = new Uint8Array(16);
    bytes[10] = bytes[11] = 0xff;
    bytes.set(v4, 12);
    return bytes;
  }
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let tail: number[] = [];
  let body = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const v4 = ipv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    body = text.slice(0, lastColon + 1) + "0";
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => half === "" ? [] : half.split(":");
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (tail.length > 0) {
    // The "0" stood for the IPv4 part: drop it.
    (halves.length === 2 ? rest : head).pop();
  }
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const words: number[] = [];
  for (const group of [...head]) words.push(hex(group));
  for (let i = given; i < 8; i++) words.push(0);
  for (const group of rest) words.push(hex(group));
  words.push(...tail);
  if (words.some((word) => Number.isNaN(word))) return undefined;
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function hex(group: string): number {
  return /^[0-9a-fA-F]{1,4}$/.test(group) ? parseInt(group, 16) : NaN;
}

/** The four bytes of a dotted IPv4 address (one pass, no allocation but the result). */
function ipv4(text: string): number[] | undefined {
  const bytes = [0, 0, 0, 0];
  let part = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) { // "."
      if (digits === 0 || ++part > 3) return undefined;
      digits = 0;
    } else if (code >= 48 && code <= 57 && digits < 3) {
      bytes[part] = bytes[part]! * 10 + code - 48;
      digits++;
    } else return undefined;
  }
  return part === 3 && digits > 0 && bytes.every((byte) => byte <= 255)
    ? bytes
    : undefined;
}

/** Whether `bytes` (16) are an IPv4 address mapped into IPv6. */
export function isMappedIpv4(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * Whether `bytes` (16) fall within `range`.
 *
 * @example
 * ```ts
 * const [range] = parseTrustedProxies("10.0.0.0/8");
 * inRange(parseAddress("10.1.2.3")!, range!); // true
 * ```
 */
export function inRange(bytes: Uint8Array, range: AddressRange): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

/**
 * Reads a comma-separated list of addresses and CIDR ranges (`10.0.0.0/8`,
 * `127.0.0.1`, `fd00::/8`, `::1`). Throws an `Error` naming each entry that is not
 * one.
 *
 * @example
 * ```ts
 * parseTrustedProxies("127.0.0.1, 10.0.0.0/8").length; // 2
 * ```
 */
export function parseTrustedProxies(raw: string): readonly AddressRange[] {
  const ranges: AddressRange[] = [];
  const problems: string[] = [];
  for (const entry of raw.split(",").map((item) => item.trim())) {
    if (entry === "") continue;
    const [address = "", length, extra] = entry.split("/");
    const bytes = parseAddress(address.replace(/^\[(.*)\]$/, "$1"));
    const v4 = bytes !== undefined && !address.includes(":");
    const max = v4 ? 32 : 128;
    const bits = length === undefined
      ? max
      : /^\d{1,3}$/.test(length)
      ? Number(length)
      : NaN;
    if (bytes === undefined || extra !== undefined || !(bits <= max)) {
      problems.push(`"${entry}" is not an IP address or CIDR range`);
      continue;
    }
    ranges.push(Object.freeze({ bytes, bits: v4 ? bits + 96 : bits }));
  }
  if (problems.length > 0) {
    throw new Error(
      `expected IP addresses or CIDR ranges such as 127.0.0.1,10.0.0.0/8,fd00::/8, comma-separated: ${
        problems.join("; ")
      }`,
    );
  }
  return Object.freeze(ranges);
}

/**
 * The `PROXY_TRUSTED_PROXIES` setting, default none.
 *
 * @example
 * ```ts
 * const schema = { PROXY_TRUSTED_PROXIES: trustedProxies({ description: "Reverse proxies" }) };
 * ```
 */
export function trustedProxies(
  options: { description: string },
): Setting<readonly AddressRange[]> {
  return custom<readonly AddressRange[]>(
    { ...options, default: [] },
    parseTrustedProxies,
    (value) => value.length === 0 ? "none" : String(value.length),
  );
}
