/**
 * The notifier's HTTP app: `GET /` usage and `GET /note/{title}/{body}`.
 *
 * @module
 */
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { createHttpApp } from "../../lib/http.ts";
import type { Log } from "../../lib/log.ts";
import { methodNotAllowed } from "../../lib/method_not_allowed.ts";
import { preview } from "../../lib/preview.ts";
import type { PushClient } from "./push_client.ts";
import { PushError } from "./push_error.ts";

/** The text answered by `GET /`. */
export const NOTIFIER_USAGE = "Usage: GET /note/{title}/{body}";

/** Options of {@linkcode createNotifierApp}. */
export interface NotifierAppOptions {
  /** Where notes go. */
  push: PushClient;
  /** Where sent notes and failures are logged. */
  log: Log;
  /** Longest title, in characters. @default 256 */
  maxTitleLength?: number;
  /** Longest body, in characters. @default 4096 */
  maxBodyLength?: number;
}

/**
 * Returns the notifier's HTTP app: `GET /` answers the usage text and
 * `GET /note/{title}/{body}` sends a note and answers the push API's JSON reply.
 *
 * Title and body are percent-decoded path segments (`%2F` is a slash in the text, `+`
 * stays a plus). Malformed encoding or a text past its limit: 400. A push API failure:
 * 502 with its status or reason in the message.
 *
 * @example
 * ```ts
 * const app = createNotifierApp({ push: createPushClient({ ... }), log });
 * const response = await app.request("/note/Door/Opened");
 * ```
 */
export function createNotifierApp(options: NotifierAppOptions): Hono {
  const { push, log } = options;
  const limits = {
    title: options.maxTitleLength ?? 256,
    body: options.maxBodyLength ?? 4096,
  };
  const app = createHttpApp({ log });
  app.get("/", (c) => c.text(NOTIFIER_USAGE));
  app.all("/note/*", async (c) => {
    if (c.req.method !== "GET") {
      return methodNotAllowed(c, ["GET"], { hint: NOTIFIER_USAGE });
    }
    // The raw path, so that an encoded slash stays inside its segment and an
    // encoded dot segment (`%2e%2e`) is text, not a step up.
    const segments = rawPath(c.req.url).split("/").slice(2);
    if (segments.length !== 2) {
      throw new HTTPException(404, { message: `Not found: ${NOTIFIER_USAGE}` });
    }
    const title = decodeSegment("title", segments[0]!, limits.title);
    const body = decodeSegment("body", segments[1]!, limits.body);
    if (title.trim() === "" && body.trim() === "") {
      throw new HTTPException(400, {
        message: "Empty note: give a title or a body",
      });
    }
    try {
      const reply = await push.sendNote({ title, body });
      log.info(`Sent note "${preview(title)}"`);
      return c.json(reply as object, 200);
    } catch (error) {
      if (!(error instanceof PushError)) throw error;
      log.warn(`Cannot send note "${preview(title)}": ${error.message}`);
      throw new HTTPException(502, { message: error.message, cause: error });
    }
  });
  return app;
}

/** The path of a request URL as received: no dot segments resolved, no query. */
function rawPath(url: string): string {
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  return path.split(/[?#]/, 1)[0]!;
}

function decodeSegment(name: string, raw: string, limit: number): string {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw new HTTPException(400, {
      message: `Invalid ${name} "${preview(raw)}": malformed percent-encoding`,
    });
  }
  const length = [...text].length;
  if (length > limit) {
    throw new HTTPException(400, {
      message: `Invalid ${name}: ${length} characters, the limit is ${limit}`,
    });
  }
  return text;
}
