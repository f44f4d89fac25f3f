/**
 * Reads the Apprise API's stateless notification payload from a request.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { bodyText } from "../../lib/body_text.ts";
import { preview } from "../../lib/preview.ts";
import { type Message, NOTIFY_TYPES, type NotifyType } from "./targets/mod.ts";

/** A message to send and the tag filter that selects its targets. */
export interface NotifyPayload {
  /** The message. */
  readonly message: Message;
  /** The tag filter; absent selects every target. */
  readonly tag?: string;
}

/**
 * Reads `body` (required), `title`, `type` (`info`, `success`, `warning`,
 * `failure`; default `info`) and `tag` (or `tags`) from a JSON object or form fields
 * (urlencoded or multipart). A `urls` field is refused with 403: the notifier sends
 * only to its configured targets. Anything else malformed: 400.
 */
export async function readNotifyPayload(
  c: Context,
  limits: { title: number; body: number },
): Promise<NotifyPayload> {
  const fields = await readFields(c);
  if ("urls" in fields) {
    throw new HTTPException(403, {
      message:
        "The urls field is refused: this notifier sends only to its configured targets (NOTIFIER_URLS, NOTIFIER_CONFIG); select them with tag",
    });
  }
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") {
      throw new HTTPException(400, {
        message: `Invalid ${name}: expected a string`,
      });
    }
    return value;
  };
  const body = text("body");
  if (body === undefined || body.trim() === "") {
    throw new HTTPException(400, {
      message: "Missing body: give the text of the notification in body",
    });
  }
  const title = text("title") ?? "";
  for (const [name, value] of [["title", title], ["body", body]] as const) {
    const length = [...value].length;
    if (length > limits[name]) {
      throw new HTTPException(400, {
        message: `Invalid ${name}: ${length} characters, the limit is ${
          limits[name]
        }`,
      });
    }
  }
  const typeText = (text("type") || "info").toLowerCase();
  if (!(NOTIFY_TYPES as readonly string[]).includes(typeText)) {
    throw new HTTPException(400, {
      message: `Invalid type "${preview(typeText)}": expected one of ${
        NOTIFY_TYPES.join(", ")
      }`,
    });
  }
  const tag = text("tag") ?? text("tags");
  return {
    message: { title, body, type: typeText as NotifyType },
    tag: tag?.trim() ? tag : undefined,
  };
}

/** The request's fields: a JSON object, or form fields. */
async function readFields(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (
    type.startsWith("application/x-www-form-urlencoded") ||
    type.startsWith("multipart/form-data")
  ) {
    let form: FormData;
    try {
      form = await c.req.raw.formData();
    } catch {
      throw new HTTPException(400, {
        message: "Invalid body: malformed form data",
      });
    }
    const fields: Record<string, unknown> = {};
    for (const [name, value] of form) {
      fields[name] = value;
    }
    const names = Object.keys(fields);
    if (names.length === 1 && names[0]!.trimStart().startsWith("{")) {
      throw new HTTPException(400, {
        message:
          "Invalid body: JSON sent as form data: send it with Content-Type: application/json",
      });
    }
    return fields;
  }
  if (type !== "" && !/^application\/([\w.+-]*\+)?json\b/.test(type)) {
    throw new HTTPException(415, {
      message: `Unsupported content type "${
        preview(type)
      }": send JSON or form fields`,
    });
  }
  const raw = await bodyText(c);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new HTTPException(400, {
      message: "Invalid body: expected a JSON object or form fields",
    });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new HTTPException(400, {
      message: "Invalid body: expected a JSON object",
    });
  }
  return parsed as Record<string, unknown>;
}
