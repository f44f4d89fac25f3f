/**
 * The OpenAPI parameter objects of the `messages` list's json-server 0.17 query
 * dialect, for the role's OpenAPI document.
 *
 * @module
 */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./list_query.ts";

const queryParameter = (
  name: string,
  description: string,
  schema: Record<string, unknown>,
  explode = false,
) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
  ...(explode ? { style: "form", explode: true } : {}),
});
const pageSize = { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE };
/** The query parameters of the list, as OpenAPI parameter objects. */
export const listParameters = [
  queryParameter("_page", "Page number, from 1", {
    type: "integer",
    minimum: 1,
  }),
  queryParameter(
    "_limit",
    `Page size with _page (default ${DEFAULT_PAGE_SIZE}), or slice length with _start`,
    pageSize,
  ),
  queryParameter("_per_page", "Page size with _page, like _limit", pageSize),
  queryParameter("_start", "First index of a slice, from 0", {
    type: "integer",
    minimum: 0,
  }),
  queryParameter(
    "_end",
    `End of a slice, exclusive (at most ${MAX_PAGE_SIZE} past _start)`,
    { type: "integer", minimum: 0 },
  ),
  queryParameter(
    "_sort",
    "Fields to sort by, comma-separated (id, author, message); a leading - sorts that field descending. Default id",
    {
      type: "string",
      pattern: "^-?(id|author|message)(,-?(id|author|message))*$",
    },
  ),
  queryParameter(
    "_order",
    "asc or desc for each _sort field, comma-separated, any case; alone, for id",
    {
      type: "string",
      pattern:
        "^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])?(,([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])?)*$",
    },
  ),
  queryParameter("id", "Exact id; repeated means any of them", {
    type: "array",
    items: { type: "integer" },
  }, true),
  queryParameter("author", "Exact author; repeated means any of them", {
    type: "array",
    items: { type: "string" },
  }, true),
  queryParameter("message", "Exact message; repeated means any of them", {
    type: "array",
    items: { type: "string" },
  }, true),
  queryParameter("author_like", "Author contains this, ignoring case", {
    type: "string",
  }),
  queryParameter("message_like", "Message contains this, ignoring case", {
    type: "string",
  }),
  queryParameter("id_ne", "Id differs from these", {
    type: "array",
    items: { type: "integer" },
  }, true),
  queryParameter("author_ne", "Author differs from these", {
    type: "array",
    items: { type: "string" },
  }, true),
  queryParameter("message_ne", "Message differs from these", {
    type: "array",
    items: { type: "string" },
  }, true),
  queryParameter("id_gte", "Id at least this (repeated: any of them)", {
    type: "integer",
  }),
  queryParameter("id_lte", "Id at most this (repeated: any of them)", {
    type: "integer",
  }),
  queryParameter(
    "q",
    "Author or message contains this, ignoring case",
    { type: "string" },
  ),
];
