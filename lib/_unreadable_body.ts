/**
 * The 400 of a request body that could not be read.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";

/** The 400 of a body cut short (the client went away mid-upload). */
export function unreadableBody(): HTTPException {
  return new HTTPException(400, {
    message: "The request body could not be read: the upload was cut short",
  });
}
