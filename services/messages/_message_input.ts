/**
 * Validation of what a client sends to the `messages` role: record ids in paths and
 * JSON bodies.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import type { MessageFields } from "./message_store.ts";

/**
 * Returns the record id written in a path segment, or `undefined` when the segment is
 * not a positive integer in canonical form (`1`, not `01`, `+1`, `1.0` or `1e0`).
 */
export function parseMessageId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * Reads `author` and `message` from a JSON body, ignoring any other field.
 *
 * @throws {HTTPException} 400 when the body is not a JSON object or a field is
 * missing, blank, not a string, or holds text SQLite cannot return unchanged.
 */
export function parseMessageFields(body: string): MessageFields {
  const fields = jsonObject(body);
  return {
    author: textField(fields, "author"),
    message: textField(fields, "message"),
  };
}

function jsonObject(body: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw badRequest(`Invalid JSON body: ${detail}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest(
      'Invalid body: expected a JSON object with "author" and "message"',
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Reads `author`, `message` or both from a JSON body (a `PATCH`), ignoring any
 * other field.
 *
 * @throws {HTTPException} 400 when the body is not a JSON object, holds neither
 * field, or a field given is invalid as in {@linkcode parseMessageFields}.
 */
export function parsePartialMessageFields(
  body: string,
): Partial<MessageFields> {
  const fields = jsonObject(body);
  const partial: Partial<MessageFields> = {};
  if (fields.author !== undefined) partial.author = textField(fields, "author");
  if (fields.message !== undefined) {
    partial.message = textField(fields, "message");
  }
  if (partial.author === undefined && partial.message === undefined) {
    throw badRequest(
      'Invalid body: expected a JSON object with "author", "message" or both',
    );
  }
  return partial;
}

function textField(fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  if (value === undefined) throw badRequest(`Missing field "${name}"`);
  if (typeof value !== "string") {
    throw badRequest(`Invalid field "${name}": expected a string`);
  }
  if (value.trim() === "") {
    throw badRequest(`Invalid field "${name}": expected a non-blank string`);
  }
  // SQLite would cut a string at NUL and turn lone surrogates into U+FFFD.
  if (value.includes("\0") || !value.isWellFormed()) {
    throw badRequest(
      `Invalid field "${name}": expected text without NUL characters or lone surrogates`,
    );
  }
  return value;
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}
