/**
 * The notifier's HTTP app: `GET /` usage, the original `GET /note/{title}/{body}` and
 * the Apprise-API-compatible `POST /notify`, and Alertmanager's webhook
 * `POST /notify/alertmanager`.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requireBearer } from "../../lib/bearer.ts";
import { headLength } from "../../lib/head_length.ts";
import { createHttpApp } from "../../lib/http.ts";
import { limitBody } from "../../lib/limit_body.ts";
import type { Log } from "../../lib/log.ts";
import { methodNotAllowed } from "../../lib/method_not_allowed.ts";
import { preview } from "../../lib/preview.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzHandler } from "../../lib/readyz.ts";
import type { Notify } from "./notify.ts";
import { readNotifyPayload } from "./notify_payload.ts";
import {
  ALERTMANAGER_MAX_BYTES,
  readAlertmanagerNote,
} from "./alertmanager_note.ts";
import type { Message } from "./targets/mod.ts";

/** The text returned by `GET /`. */
export const NOTIFIER_USAGE = "Usage: GET /note/{title}/{body}";

/** Options of {@linkcode createNotifierApp}. */
export interface NotifierAppOptions {
  /** Sends a message to the targets. */
  notify: Notify;
  /**
   * Responds as the original Pushbullet notifier: the push API's decoded reply, or 502
   * `{"message"}`. True when the only target is one Pushbullet token.
   */
  pushbulletReply: boolean;
  /** Where unexpected errors are logged. */
  log: Log;
  /** Bearer token every send needs; none when absent. */
  token?: string;
  /** Longest title, in characters. @default 256 */
  maxTitleLength?: number;
  /** Longest body, in characters. @default 4096 */
  maxBodyLength?: number;
  /** The role's metrics: every request counted and timed. @default none */
  metrics?: MetricsRegistry;
}

/**
 * Returns the notifier's HTTP app.
 *
 * `POST /notify/alertmanager` takes Alertmanager's webhook payload (version 4, up to
 * 1 MiB) and sends one note per notification (see `alertmanagerNote`).
 *
 * `GET /note/{title}/{body}` takes percent-decoded path segments (`%2F` is a slash in
 * the text, `+` stays a plus); `POST /notify` (and `/notify/`) takes the Apprise API's
 * `body`, `title`, `type` and `tag` as JSON or form fields, and refuses `urls` (403).
 * Both return the Pushbullet reply when that is the only target, otherwise 200
 * `{"results": [...]}`, or 502 with the same body when a target failed.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * import type { Notify } from "./notify.ts";
 *
 * declare const notify: Notify;
 * const app = createNotifierApp({
 *   notify,
 *   pushbulletReply: false,
 *   log: createLog("notifier"),
 * });
 * const response = await app.request("/note/Door/Opened");
 * ```
 */
export function createNotifierApp(options: NotifierAppOptions): Hono {
  const limits = {
    title: options.maxTitleLength ?? 256,
    body: options.maxBodyLength ?? 4096,
  };
  const app = createHttpApp({ log: options.log });
  if (options.metrics) app.use(httpMetrics(options.metrics));
  app.use(headLength());
  // Ready once started: a target that fails is the note's outcome, not the role's.
  app.get("/readyz", readyzHandler(() => undefined));
  app.get("/", (c) => c.text(NOTIFIER_USAGE));
  if (options.token !== undefined) {
    const auth = requireBearer({
      token: options.token,
      schemeCase: "any-case",
    });
    app.use("/note/*", auth);
    app.use("/notify", auth);
    app.use("/notify/", auth);
    app.use("/notify/alertmanager", auth);
  }
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
    return await send(c, { title, body, type: "info" });
  });
  for (const path of ["/notify", "/notify/"]) {
    app.post(path, limitBody(64 * 1024), async (c) => {
      const { message, tag } = await readNotifyPayload(c, limits);
      return await send(c, message, tag);
    });
  }

  // Alertmanager's webhook: `?tag=` selects the targets, as `tag` does above.
  app.post(
    "/notify/alertmanager",
    limitBody(ALERTMANAGER_MAX_BYTES),
    async (c) =>
      await send(c, await readAlertmanagerNote(c, limits), c.req.query("tag")),
  );

  async function send(c: Context, message: Message, tag?: string) {
    const outcome = await options.notify(message, tag);
    if (outcome.kind === "deduplicated") {
      return c.json({ deduplicated: true }, 200);
    }
    if (outcome.kind === "no-target") {
      throw new HTTPException(424, {
        message: `No target has the tag "${preview(tag ?? "")}"`,
      });
    }
    const { deliveries } = outcome;
    if (options.pushbulletReply && deliveries.length === 1) {
      const [delivery] = deliveries;
      if (!delivery!.ok) {
        throw new HTTPException(502, { message: delivery!.error });
      }
      try {
        return c.json(JSON.parse(delivery!.reply ?? ""), 200);
      } catch {
        throw new HTTPException(502, {
          message: `Push API returned HTTP ${
            delivery!.status
          } with invalid JSON`,
        });
      }
    }
    const results = deliveries.map((d) => ({
      target: d.target,
      ok: d.ok,
      status: d.status,
      ...(d.ok ? {} : { error: d.error }),
    }));
    return c.json({ results }, results.every((r) => r.ok) ? 200 : 502);
  }

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
