/**
 * `pover://USER_KEY@APP_TOKEN[/DEVICE...]`: a Pushover message through
 * `POST {base}/1/messages.json` (form fields).
 *
 * @module
 */
import {
  MASK,
  type Message,
  type ServiceBases,
  type Target,
  type TargetRequest,
  TargetUrlError,
} from "./target.ts";
import type { UrlParts } from "./url_parts.ts";

/** Apprise's priority words and numbers, first prefix match wins. */
const PRIORITIES: [string, number][] = [
  ["l", -2],
  ["m", -1],
  ["n", 0],
  ["h", 1],
  ["e", 2],
  ["-2", -2],
  ["-1", -1],
  ["0", 0],
  ["1", 1],
  ["2", 2],
];

const KEY = /^[a-z0-9]{1,64}$/i;
const DEVICE = /^[a-z0-9_-]{1,25}$/i;

/** Reads a Pushover URL; `?priority=` as Apprise does (default 0). */
export function parsePushoverUrl(parts: UrlParts): Target {
  const devices = parts.path;
  const display = `pover://${MASK}@${MASK}${
    devices.length ? `/${devices.join("/")}` : ""
  }`;
  const fail = (what: string) => new TargetUrlError(`"${display}": ${what}`);
  const userKey = parts.user ?? "";
  const appToken = parts.host;
  if (
    !KEY.test(userKey) || !KEY.test(appToken) || parts.password !== undefined ||
    parts.port !== undefined
  ) {
    throw fail("expected pover://USER_KEY@APP_TOKEN[/DEVICE]");
  }
  if (!devices.every((device) => DEVICE.test(device))) {
    throw fail("expected device names of 1 to 25 letters, digits, _ or -");
  }
  const priorityText = parts.query.get("priority");
  const priority = priorityText
    ? PRIORITIES.find(([p]) => priorityText.toLowerCase().startsWith(p))?.[1]
    : 0;
  if (priority === undefined) {
    throw fail(
      "expected ?priority= low, moderate, normal, high, emergency or -2 to 2",
    );
  }
  return {
    scheme: "pover",
    service: "Pushover",
    display,
    secrets: [userKey, appToken],
    requests(message: Message, bases: ServiceBases): TargetRequest[] {
      const form = new URLSearchParams({
        token: appToken,
        user: userKey,
        priority: String(priority),
        // Pushover refuses an empty message: a title alone is sent as the message.
        message: message.body || message.title,
      });
      if (message.title && message.body) form.set("title", message.title);
      if (devices.length > 0) form.set("device", devices.join(","));
      // An emergency message repeats until acknowledged: Pushover requires both.
      if (priority === 2) {
        form.set("retry", "900");
        form.set("expire", "3600");
      }
      return [{
        url: `${bases.pushover.replace(/\/+$/, "")}/1/messages.json`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      }];
    },
  };
}
