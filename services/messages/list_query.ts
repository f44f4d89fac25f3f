/**
 * The json-server 0.17 list query dialect of the `messages` role: paging, sorting
 * and filters read from a query string, and the `Link` header of a page.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import { preview } from "../../lib/preview.ts";
import { foldCase } from "./_fold_case.ts";

/** A field the list can be sorted and filtered by. */
export type MessageField = "id" | "author" | "message";

/** One sort key. */
export interface SortKey {
  /** The field compared (text by Unicode code point). */
  field: MessageField;
  /** `true` for descending. */
  descending: boolean;
}

/**
 * Which records a list query matches; every condition given must hold. Text
 * comparisons are exact (`author`, `message`, `authorNot`) or case-insensitive
 * substrings (`authorLike`, `messageLike`, `q`: the needle is already folded by
 * `foldCase`).
 */
export interface MessageFilter {
  /** Any of these ids. */
  id?: number[];
  /** Any of these authors, exactly. */
  author?: string[];
  /** Any of these messages, exactly. */
  message?: string[];
  /** None of these ids. */
  idNot?: number[];
  /** None of these authors. */
  authorNot?: string[];
  /** None of these messages. */
  messageNot?: string[];
  /** The author holds any of these folded texts, ignoring case. */
  authorLike?: string[];
  /** The message holds any of these folded texts, ignoring case. */
  messageLike?: string[];
  /** Id at least this. */
  idMin?: number;
  /** Id at most this. */
  idMax?: number;
  /** The author or the message holds this folded text, ignoring case. */
  q?: string;
}

/** What a store returns for a list query. */
export interface MessageQuery {
  /** Which records match. */
  filter: MessageFilter;
  /** The order, most significant key first; ties end by ascending id. */
  sort: SortKey[];
  /** How many matching records to skip. */
  offset: number;
  /** How many to return at most; `undefined` for all. */
  limit: number | undefined;
}

/** How the client asked for its page, to build the `Link` header. */
export type Paging =
  | { kind: "none" }
  | { kind: "page"; page: number; size: number }
  | {
    kind: "slice";
    start: number;
    size: number;
    sizeParam: "_end" | "_limit";
  };

/** A parsed list query. */
export interface ListQuery {
  /** What the store is asked. */
  query: MessageQuery;
  /** How the client asked for the page. */
  paging: Paging;
}

/** The default page size of `_page`. */
export const DEFAULT_PAGE_SIZE = 10;

/** The largest page: `_limit`, `_per_page`, and `_end` − `_start`. */
export const MAX_PAGE_SIZE = 1000;

const FIELDS: readonly MessageField[] = ["id", "author", "message"];
const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Reads a json-server 0.17 list query from `params`: `_page` with `_limit` or
 * `_per_page` (default 10, at most 1000), or `_start` with `_end` or `_limit`;
 * `_sort` (`field[,field]`, a leading `-` for descending) with `_order`
 * (`asc|desc[,…]`, any case); filters `id`, `author`, `message` (repeated: any),
 * `<field>_ne`, `author_like`, `message_like`, `id_gte`, `id_lte` and `q`. Other
 * parameters are ignored.
 *
 * @throws {HTTPException} 400 naming the parameter when a known one is malformed
 *
 * @example
 * ```ts
 * parseListQuery(new URLSearchParams("_page=2&_limit=5&_sort=-id")).query;
 * // { filter: {}, sort: [{ field: "id", descending: true }], offset: 5, limit: 5 }
 * ```
 */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const { window, paging: asked } = paging(params);
  const query = {
    filter: parseFilter(params),
    sort: parseSort(params),
    ...window,
  };
  return { query, paging: asked };
}

function paging(
  params: URLSearchParams,
): { window: { offset: number; limit: number | undefined }; paging: Paging } {
  // Every paging parameter is checked, also one the form asked leaves unused.
  const limit = optionalInteger(params, "_limit", 1, MAX_PAGE_SIZE);
  const perPage = optionalInteger(params, "_per_page", 1, MAX_PAGE_SIZE);
  const size = limit ?? perPage;
  const page = optionalInteger(params, "_page", 1, MAX_ID);
  const start = optionalInteger(params, "_start", 0, MAX_ID);
  const end = optionalInteger(params, "_end", 0, MAX_ID);
  if (page !== undefined) {
    const pageSize = size ?? DEFAULT_PAGE_SIZE;
    return {
      window: { offset: safeProduct(page - 1, pageSize), limit: pageSize },
      paging: { kind: "page", page, size: pageSize },
    };
  }
  if (end !== undefined) {
    const from = start ?? 0;
    if (end < from) {
      throw invalid(
        "_end",
        params.get("_end")!,
        "expected an integer ≥ _start",
      );
    }
    if (end - from > MAX_PAGE_SIZE) {
      throw invalid(
        "_end",
        params.get("_end")!,
        `expected at most ${MAX_PAGE_SIZE} past _start`,
      );
    }
    return {
      window: { offset: from, limit: end - from },
      paging: {
        kind: "slice",
        start: from,
        size: end - from,
        sizeParam: "_end",
      },
    };
  }
  if (size !== undefined) {
    const from = start ?? 0;
    return {
      window: { offset: from, limit: size },
      paging: { kind: "slice", start: from, size, sizeParam: "_limit" },
    };
  }
  return {
    window: { offset: start ?? 0, limit: undefined },
    paging: { kind: "none" },
  };
}

function parseSort(params: URLSearchParams): SortKey[] {
  const sort = params.get("_sort");
  const orders = (params.get("_order") ?? "").split(",").map((order) => {
    const value = order.trim().toLowerCase();
    if (value === "asc" || value === "") return false;
    if (value === "desc") return true;
    throw invalid("_order", params.get("_order")!, 'expected "asc" or "desc"');
  });
  // `_order` alone orders the default key.
  if (sort === null || sort === "") {
    return [{ field: "id", descending: orders[0] ?? false }];
  }
  return sort.split(",").map((name, i) => {
    const trimmed = name.trim();
    const minus = trimmed.startsWith("-");
    const field = minus ? trimmed.slice(1) : trimmed;
    if (!FIELDS.includes(field as MessageField)) {
      throw invalid(
        "_sort",
        sort,
        `expected fields among ${FIELDS.join(", ")}`,
      );
    }
    return {
      field: field as MessageField,
      descending: minus || (orders[i] ?? false),
    };
  });
}

/**
 * The filter parameters of a list query alone (`id=`, `author_like=`, `q=`...),
 * for the change feed, which ignores paging and sort whatever their values.
 *
 * @throws {HTTPException} 400 naming the parameter when a filter is malformed
 *
 * @example
 * ```ts
 * parseFilter(new URLSearchParams("author=bob&_page=0")); // the filter of author=bob
 * ```
 */
export function parseFilter(params: URLSearchParams): MessageFilter {
  const filter: MessageFilter = {};
  const ids = (name: string) => {
    const values = params.getAll(name);
    return values.length === 0 ? undefined : values.map((value) => {
      const id = integer(value);
      if (id === undefined) {
        throw invalid(name, value, "expected an integer");
      }
      return id;
    });
  };
  const texts = (name: string) => {
    const values = params.getAll(name).map((value) => text(name, value));
    return values.length === 0 ? undefined : values;
  };
  const needles = (name: string) => {
    const values = params.getAll(name).map((value) => text(name, value))
      .filter((value) => value !== "");
    return values.length === 0 ? undefined : values.map(foldCase);
  };
  assign(filter, "id", ids("id"));
  assign(filter, "author", texts("author"));
  assign(filter, "message", texts("message"));
  assign(filter, "idNot", ids("id_ne"));
  assign(filter, "authorNot", texts("author_ne"));
  assign(filter, "messageNot", texts("message_ne"));
  assign(filter, "authorLike", needles("author_like"));
  assign(filter, "messageLike", needles("message_like"));
  // Repeated, as json-server reads it, any bound will do: the loosest one.
  const min = ids("id_gte");
  const max = ids("id_lte");
  if (min) filter.idMin = Math.min(...min);
  if (max) filter.idMax = Math.max(...max);
  const q = params.get("q");
  if (q !== null && q !== "") filter.q = foldCase(text("q", q));
  return filter;
}

function assign<K extends keyof MessageFilter>(
  filter: MessageFilter,
  key: K,
  value: MessageFilter[K] | undefined,
): void {
  if (value !== undefined) filter[key] = value;
}

function optionalInteger(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  const number = integer(value);
  if (number === undefined || number < min || number > max) {
    throw invalid(name, value, `expected an integer from ${min} to ${max}`);
  }
  return number;
}

/**
 * `value`, refused when it holds a NUL character: no record can (bodies with one are
 * refused), and PostgreSQL cannot even compare it.
 */
function text(name: string, value: string): string {
  if (value.includes("\0")) {
    throw invalid(name, value, "expected text without a NUL character");
  }
  return value;
}

/** A decimal integer within ±(2^53 − 1), or `undefined`. */
function integer(value: string): number | undefined {
  if (!/^-?[0-9]{1,16}$/.test(value.trim())) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

function safeProduct(a: number, b: number): number {
  return Math.min(a * b, MAX_ID);
}

function invalid(name: string, value: string, detail: string): HTTPException {
  return new HTTPException(400, {
    message: `Invalid ${name} "${preview(value)}": ${detail}`,
  });
}
