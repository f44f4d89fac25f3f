/**
 * The request body as text, or a 400.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { unreadableBody } from "./_unreadable_body.ts";

/**
 * The request body as text. A body that cannot be read (the client went away
 * mid-upload) or is not UTF-8 (which would be stored with replacement characters)
 * is a 400, not a server error.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bodyText } from "./body_text.ts";
 *
 * const app = new Hono();
 * app.post("/items", async (c) => c.json(JSON.parse(await bodyText(c))));
 * ```
 */
export async function bodyText(c: Context): Promise<string> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw unreadableBody();
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HTTPException(400, {
      message: "Invalid body: it is not valid UTF-8 text",
    });
  }
}
