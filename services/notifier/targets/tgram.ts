/**
 * `tgram://BOT_TOKEN/CHAT_ID[/CHAT_ID...]`: a Telegram Bot API `sendMessage` per chat,
 * the title in bold above the body (HTML parse mode), as Apprise sends it.
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

const BOT_TOKEN = /^\d+:[a-z0-9_-]+$/i;
const CHAT_ID = /^(@?-?\d{1,32}|@?[a-z_-][a-z0-9_-]+)$/i;

/** Reads a Telegram URL (the token's colon reads as a port separator in the URL). */
export function parseTelegramUrl(parts: UrlParts): Target {
  const chats = parts.path;
  const display = `tgram://${MASK}/${chats.join("/")}`;
  const token = `${parts.host.replace(/^bot/i, "")}:${parts.port ?? ""}`;
  if (
    parts.user !== undefined || !BOT_TOKEN.test(token) || chats.length === 0 ||
    !chats.every((chat) => CHAT_ID.test(chat))
  ) {
    throw new TargetUrlError(
      `"${display}": expected tgram://BOT_TOKEN/CHAT_ID with a token like 123456:ABC-def and a numeric chat id or @channel`,
    );
  }
  return {
    scheme: "tgram",
    service: "Telegram",
    display,
    secrets: [token, token.split(":")[1]!],
    requests(message: Message, bases: ServiceBases): TargetRequest[] {
      const text = message.title
        ? `<b>${escapeHtml(message.title)}</b>\r\n${escapeHtml(message.body)}`
        : escapeHtml(message.body);
      return chats.map((chat) => ({
        url: `${bases.telegram.replace(/\/+$/, "")}/bot${token}/sendMessage`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          chat_id: /^@?-?\d+$/.test(chat)
            ? Number(chat.replace("@", ""))
            : `@${chat.replace(/^@/, "")}`,
          text,
          parse_mode: "HTML",
        }),
      }));
    },
  };
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}
