/**
 * The notification targets: Apprise URLs read into {@linkcode Target}s, by scheme.
 *
 * @module
 */
import { parseDiscordUrl } from "./discord.ts";
import { parseGotifyUrl } from "./gotify.ts";
import { parseJsonUrl } from "./json.ts";
import { parseNtfyUrl } from "./ntfy.ts";
import { parsePushbulletUrl } from "./pbul.ts";
import { parsePushoverUrl } from "./pover.ts";
import { type Target, TargetUrlError } from "./target.ts";
import { parseTelegramUrl } from "./tgram.ts";
import { maskUnreadable, parseUrlParts, type UrlParts } from "./url_parts.ts";

export { pushbulletTarget } from "./pbul.ts";
export * from "./target.ts";

/** The readers by scheme; `keepHost` says whether the host is a server, not a token. */
const SCHEMES: Record<
  string,
  { read: (parts: UrlParts) => Target; keepHost: boolean }
> = {
  pbul: { read: parsePushbulletUrl, keepHost: false },
  ntfy: { read: parseNtfyUrl, keepHost: true },
  ntfys: { read: parseNtfyUrl, keepHost: true },
  gotify: { read: parseGotifyUrl, keepHost: true },
  gotifys: { read: parseGotifyUrl, keepHost: true },
  pover: { read: parsePushoverUrl, keepHost: false },
  tgram: { read: parseTelegramUrl, keepHost: false },
  discord: { read: parseDiscordUrl, keepHost: false },
  json: { read: parseJsonUrl, keepHost: true },
  jsons: { read: parseJsonUrl, keepHost: true },
};

/** The schemes understood, for messages and docs. */
export const TARGET_SCHEMES: readonly string[] = Object.keys(SCHEMES);

/**
 * Reads one Apprise URL into a {@linkcode Target}.
 *
 * @throws {TargetUrlError} for an unknown scheme or a malformed URL; the message
 * quotes the URL with its secrets masked.
 * @example
 * ```ts
 * const target = parseTargetUrl("ntfy://ntfy.lan/alerts?priority=high");
 * target.display; // "ntfy://ntfy.lan/alerts"
 * ```
 */
export function parseTargetUrl(raw: string): Target {
  const scheme = /^([a-z0-9+.-]+):\/\//i.exec(raw)?.[1]?.toLowerCase();
  const reader = scheme === undefined ? undefined : SCHEMES[scheme];
  if (reader === undefined) {
    throw new TargetUrlError(
      scheme === undefined
        ? `"${
          maskUnreadable(raw, false)
        }": expected an Apprise URL such as ntfy://host/topic`
        : `"${scheme}://****": unknown scheme "${scheme}": use one of ${
          TARGET_SCHEMES.join(", ")
        }`,
    );
  }
  const parts = parseUrlParts(raw);
  if (parts === undefined) {
    throw new TargetUrlError(
      `"${
        maskUnreadable(raw, reader.keepHost)
      }": malformed URL (a blank, or bad percent-encoding?)`,
    );
  }
  return reader.read(parts);
}

/**
 * Splits a list of Apprise URLs separated by commas, blanks or line breaks; as in
 * Apprise, a comma or blank splits only where a new `scheme://` follows, so a
 * comma inside a URL's options stays.
 *
 * @example
 * ```ts
 * splitUrls("ntfy://h/a?tags=x,y, gotify://h/T\njson://h");
 * // ["ntfy://h/a?tags=x,y", "gotify://h/T", "json://h"]
 * ```
 */
export function splitUrls(text: string): string[] {
  return text.trim().split(/[\s,]+(?=[a-z0-9+.-]+:\/\/)/i)
    .map((url) => url.replace(/[\s,]+$/, ""))
    .filter((url) => url !== "");
}

export { TargetUrlError };
