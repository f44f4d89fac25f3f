/**
 * The OpenAPI 3.1 document of the `messages` role, served at `GET /openapi.json`.
 *
 * @module
 */
import { listParameters } from "./_openapi_list_parameters.ts";

/** Where the document is served. */
export const OPENAPI_PATH = "/openapi.json";

const MAX_ID = Number.MAX_SAFE_INTEGER;

const json = (schema: unknown) => ({
  "application/json": { schema },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({
  description,
  content: json(ref("Error")),
});
const errors = {
  unavailable: {
    description:
      "The database cannot respond now (locked by another writer, unreachable): retry after the delay given",
    headers: { "Retry-After": { schema: { type: "integer" } } },
    content: json(ref("Error")),
  },
  unauthorized: {
    description:
      "MESSAGES_TOKEN is set and the request lacks `Authorization: Bearer <token>`",
    headers: { "WWW-Authenticate": { schema: { type: "string" } } },
    content: json(ref("Error")),
  },
};
const etagHeader = {
  ETag: {
    description: "Changes with the response; send it back in If-None-Match",
    schema: { type: "string" },
  },
};
const notModified = {
  description: "If-None-Match names the current ETag: no body",
  headers: etagHeader,
};
const ifNoneMatch = {
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
};
const idParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The record id, a positive integer in canonical form",
  schema: { type: "integer", minimum: 1, maximum: MAX_ID },
};
const fieldsBody = (schema: string, description: string) => ({
  required: true,
  description,
  content: json(ref(schema)),
});
const updated = {
  description: "Updated",
  content: json(ref("MessageFields")),
};

/**
 * Returns the OpenAPI 3.1 document of the `messages` role: every path, parameter,
 * body, status and error body.
 *
 * @example
 * ```ts
 * messagesOpenApi().openapi; // "3.1.0"
 * ```
 */
export function messagesOpenApi(): Record<string, unknown> {
  const updateOperation = (
    summary: string,
    schema: string,
    operationId: string,
  ) => ({
    summary,
    operationId,
    parameters: [idParameter],
    requestBody: fieldsBody(schema, "The new fields; other fields are ignored"),
    security: [{}, { bearer: [] }],
    responses: {
      "200": updated,
      "400": error("The body is not a JSON object with valid fields"),
      "401": errors.unauthorized,
      "404": error("No record with this id, or a malformed id"),
      "413": error("The body is larger than 64 KiB"),
      "503": errors.unavailable,
    },
  });
  return {
    openapi: "3.1.0",
    info: {
      title: "homewire messages",
      version: "1.0.0",
      description:
        "Short message records. The list speaks the json-server 0.17 query dialect. Writes need `Authorization: Bearer <token>` when MESSAGES_TOKEN is set.",
    },
    paths: {
      "/api/message/resource": {
        get: {
          summary: "List the records",
          description:
            "Without a query string: every record by ascending id. With one: the page asked, with X-Total-Count and Link headers. Unknown parameters are ignored.",
          operationId: "listMessages",
          parameters: [...listParameters, ifNoneMatch],
          responses: {
            "200": {
              description: "The records",
              headers: {
                ...etagHeader,
                "X-Total-Count": {
                  description:
                    "With a query string: how many records match, before paging",
                  schema: { type: "integer" },
                },
                Link: {
                  description:
                    'With a query string: first, prev, next and last pages (rel="...")',
                  schema: { type: "string" },
                },
                "Access-Control-Expose-Headers": {
                  description:
                    "To a page MESSAGES_ALLOW_ORIGIN allows: X-Total-Count, Link, ETag, for its script",
                  schema: { type: "string" },
                },
              },
              content: json({ type: "array", items: ref("Message") }),
            },
            "304": notModified,
            "400": error(
              "A known query parameter is malformed (named), or a query's Host header makes no URL for its Link",
            ),
            "503": errors.unavailable,
          },
        },
        post: {
          summary: "Create a record (id = highest + 1)",
          operationId: "createMessage",
          requestBody: fieldsBody("MessageFields", "The fields of the record"),
          security: [{}, { bearer: [] }],
          responses: {
            "201": {
              description: "Created",
              headers: {
                Location: {
                  description: "The path of the record",
                  schema: { type: "string" },
                },
              },
              content: json(ref("Message")),
            },
            "400": error("The body is not a JSON object with valid fields"),
            "401": errors.unauthorized,
            "413": error("The body is larger than 64 KiB"),
            "503": errors.unavailable,
            "507": error("No id is left below 2^53"),
          },
        },
      },
      "/api/message/resource/events": {
        get: {
          summary: "Stream the changes (Server-Sent Events)",
          description:
            "A text/event-stream of every change to the records matching the list's filter parameters (paging and sort are ignored), in order, whichever process or tool made it: events `created` and `updated` (data: the record as the list returns it), `deleted` (data: `{\"id\": n}`; also sent when an update makes a record stop matching the filter), each with `id:` the change's sequence number. The stream starts with `retry:` and, without Last-Event-ID, an `id:` line naming where it starts. With Last-Event-ID (the header, or the lastEventId parameter) the changes after it are sent first; when it is older than the changes kept (MESSAGES_EVENTS_KEEP), an event `reset` comes first (reload the list). A comment line comes at least every 15 s. A client that does not read is disconnected once its unread events pass 1 MiB; it resumes with Last-Event-ID.",
          operationId: "streamMessageChanges",
          parameters: [
            ...listParameters.filter((p) => !p.name.startsWith("_")),
            {
              name: "Last-Event-ID",
              in: "header",
              required: false,
              description: "Resume after this change (an event's id)",
              schema: { type: "integer", minimum: 0, maximum: MAX_ID },
            },
            {
              name: "lastEventId",
              in: "query",
              required: false,
              description:
                "Resume after this change, for clients that cannot set the header",
              schema: { type: "integer", minimum: 0, maximum: MAX_ID },
            },
          ],
          responses: {
            "200": {
              description:
                "The event stream; it lasts until the client or the server closes it",
              content: {
                "text/event-stream": {
                  schema: { type: "string" },
                },
              },
            },
            "400": error(
              "A filter parameter or Last-Event-ID is malformed (named)",
            ),
          },
        },
      },
      "/api/message/resource/{id}": {
        get: {
          summary: "Read a record",
          operationId: "getMessage",
          parameters: [idParameter, ifNoneMatch],
          responses: {
            "200": {
              description: "The record",
              headers: etagHeader,
              content: json(ref("Message")),
            },
            "304": notModified,
            "404": error("No record with this id, or a malformed id"),
            "503": errors.unavailable,
          },
        },
        post: updateOperation(
          "Update a record (both fields)",
          "MessageFields",
          "updateMessage",
        ),
        put: updateOperation(
          "Replace a record's fields (both fields)",
          "MessageFields",
          "replaceMessage",
        ),
        patch: updateOperation(
          "Update some fields of a record",
          "PartialMessageFields",
          "patchMessage",
        ),
        delete: {
          summary: "Delete a record",
          operationId: "deleteMessage",
          parameters: [idParameter],
          security: [{}, { bearer: [] }],
          responses: {
            "204": { description: "Deleted" },
            "401": errors.unauthorized,
            "404": error("No record with this id, or a malformed id"),
            "503": errors.unavailable,
          },
        },
      },
      "/healthz": {
        get: {
          summary: "Health check",
          operationId: "health",
          responses: {
            "200": {
              description: "Serving",
              content: json({
                type: "object",
                required: ["status"],
                properties: { status: { const: "ok" } },
              }),
            },
          },
        },
      },
      "/readyz": {
        get: {
          summary: "Readiness: whether the store responds",
          operationId: "ready",
          responses: {
            "200": {
              description: "Ready",
              content: json({
                type: "object",
                required: ["status"],
                properties: { status: { const: "ready" } },
              }),
            },
            "503": error("The store does not respond"),
          },
        },
      },
      [OPENAPI_PATH]: {
        get: {
          summary: "This document",
          operationId: "openApi",
          responses: {
            "200": {
              description: "OpenAPI 3.1",
              content: json({ type: "object" }),
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
      },
      schemas: {
        Text: {
          type: "string",
          minLength: 1,
          pattern: "\\S",
          description: "Not blank, no NUL character, no lone surrogate",
        },
        MessageFields: {
          type: "object",
          required: ["author", "message"],
          properties: { author: ref("Text"), message: ref("Text") },
        },
        PartialMessageFields: {
          type: "object",
          minProperties: 1,
          properties: { author: ref("Text"), message: ref("Text") },
        },
        Message: {
          type: "object",
          required: ["id", "author", "message"],
          properties: {
            id: { type: "integer", minimum: 1, maximum: MAX_ID },
            author: { type: "string" },
            message: { type: "string" },
          },
        },
        Error: {
          type: "object",
          required: ["message"],
          properties: { message: { type: "string" } },
        },
      },
    },
  };
}
