/**
 * Checks the JSON replies of the styled-message API and turns them into results.
 *
 * @module
 */
import { GzaasError } from "./gzaas_error.ts";
import type { Reply } from "./_request.ts";
import type { GzaasEntry } from "./types.ts";

/**
 * Checks a list reply: an array of objects, each with a string `hashtag`; a missing
 * or null `description` reads as "".
 */
export function parseEntries<T extends GzaasEntry>(
  what: string,
  { status, value }: Reply,
): T[] {
  const invalid = (detail: string) =>
    new GzaasError(`Gzaas API reply to ${what} is invalid: ${detail}`, {
      kind: "invalid-reply",
      status,
    });
  if (!Array.isArray(value)) throw invalid("expected a JSON array");
  return value.map((entry, index) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw invalid(`entry ${index} is not an object`);
    }
    const { hashtag, description } = entry as Record<string, unknown>;
    if (typeof hashtag !== "string") {
      throw invalid(`entry ${index} has no string "hashtag"`);
    }
    if (
      description !== undefined && description !== null &&
      typeof description !== "string"
    ) {
      throw invalid(`entry ${index} has a "description" that is not a string`);
    }
    return { ...entry, hashtag, description: description ?? "" } as T;
  });
}

/**
 * Checks a `POST /write` reply and returns its `urlGzaas`; `"valid": false` is a
 * refusal (kind `http`).
 */
export function parseCreated(what: string, { status, value }: Reply): string {
  const body = typeof value === "object" && value !== null
    ? value as Record<string, unknown>
    : {};
  if (body.valid === false) {
    const errorMessage = typeof body.errorMessage === "string"
      ? body.errorMessage
      : undefined;
    throw new GzaasError(
      `Gzaas API refused ${what}${errorMessage ? `: ${errorMessage}` : ""}`,
      { kind: "http", status, errorMessage },
    );
  }
  if (typeof body.urlGzaas !== "string" || body.urlGzaas === "") {
    throw new GzaasError(
      `Gzaas API reply to ${what} is invalid: expected "valid": true and a non-empty "urlGzaas"`,
      { kind: "invalid-reply", status },
    );
  }
  return body.urlGzaas;
}
