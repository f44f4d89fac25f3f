/**
 * `discord://WEBHOOK_ID/WEBHOOK_TOKEN`: a Discord webhook execution
 * (`POST {base}/api/webhooks/{id}/{token}` with `content`).
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

const ID = /^\d{1,32}$/;
const TOKEN = /^[a-z0-9_-]{1,200}$/i;

/** Reads a Discord URL. */
export function parseDiscordUrl(parts: UrlParts): Target {
  const id = parts.host;
  const token = parts.path[0] ?? "";
  const display = `discord://${ID.test(id) ? id : MASK}/${MASK}`;
  if (
    !ID.test(id) || !TOKEN.test(token) || parts.path.length > 1 ||
    parts.user !== undefined || parts.port !== undefined
  ) {
    throw new TargetUrlError(
      `"${display}": expected discord://WEBHOOK_ID/WEBHOOK_TOKEN`,
    );
  }
  return {
    scheme: "discord",
    service: "Discord",
    display,
    secrets: [token],
    requests(message: Message, bases: ServiceBases): TargetRequest[] {
      return [{
        url: `${bases.discord.replace(/\/+$/, "")}/api/webhooks/${id}/${token}`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          content: message.title
            ? `${message.title}\r\n${message.body}`
            : message.body,
        }),
      }];
    },
  };
}
