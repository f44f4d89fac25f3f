/**
 * A list query as SQL, for the SQLite and PostgreSQL stores.
 *
 * @module
 */
import type { MessageFilter, MessageQuery } from "./list_query.ts";

/** What differs between the SQL of the two stores. */
export interface SqlDialect {
  /** The placeholder of the `n`th parameter (from 1). */
  placeholder(n: number): string;
  /** SQL true when `column`, folded to lower case, holds the parameter `needle`. */
  contains(column: string, needle: string): string;
  /** `column` as compared for sorting: by Unicode code point. */
  sortKey(column: string): string;
  /**
   * `column` as text, for equality (SQLite may hold a BLOB another tool wrote,
   * which the store serves as text).
   */
  text(column: string): string;
}

/** The `WHERE` and `ORDER BY` clauses of a query, with their parameters. */
export interface SqlQuery {
  /** `WHERE …` (with the safe-id range always), without the leading space. */
  where: string;
  /** `ORDER BY …`. */
  orderBy: string;
  /** The parameters of `where`, in order. */
  params: (string | number)[];
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Returns the SQL of `query`'s filter and order over a table with columns `id`,
 * `author` and `message`. Values travel as parameters, never in the text.
 */
export function sqlQuery(query: MessageQuery, dialect: SqlDialect): SqlQuery {
  const params: (string | number)[] = [];
  const param = (value: string | number) => {
    params.push(value);
    return dialect.placeholder(params.length);
  };
  const conditions = [`id BETWEEN -${MAX_ID} AND ${MAX_ID}`];
  const filter: MessageFilter = query.filter;
  const anyOf = (column: string, values: (string | number)[] | undefined) => {
    if (values) {
      conditions.push(`${column} IN (${values.map(param).join(", ")})`);
    }
  };
  const noneOf = (column: string, values: (string | number)[] | undefined) => {
    if (values) {
      conditions.push(`${column} NOT IN (${values.map(param).join(", ")})`);
    }
  };
  const containsAny = (column: string, needles: string[] | undefined) => {
    if (needles) {
      conditions.push(
        `(${
          needles.map((needle) => dialect.contains(column, param(needle))).join(
            " OR ",
          )
        })`,
      );
    }
  };
  anyOf("id", filter.id);
  anyOf(dialect.text("author"), filter.author);
  anyOf(dialect.text("message"), filter.message);
  noneOf("id", filter.idNot);
  noneOf(dialect.text("author"), filter.authorNot);
  noneOf(dialect.text("message"), filter.messageNot);
  containsAny("author", filter.authorLike);
  containsAny("message", filter.messageLike);
  if (filter.idMin !== undefined) {
    conditions.push(`id >= ${param(filter.idMin)}`);
  }
  if (filter.idMax !== undefined) {
    conditions.push(`id <= ${param(filter.idMax)}`);
  }
  if (filter.q !== undefined) {
    // A parameter per use: SQLite's "?" are numbered by position.
    conditions.push(
      `(${dialect.contains("author", param(filter.q))} OR ${
        dialect.contains("message", param(filter.q))
      })`,
    );
  }
  const keys = query.sort.map(({ field, descending }) =>
    `${field === "id" ? "id" : dialect.sortKey(field)}${
      descending ? " DESC" : ""
    }`
  );
  if (!query.sort.some(({ field }) => field === "id")) keys.push("id");
  return {
    where: `WHERE ${conditions.join(" AND ")}`,
    orderBy: `ORDER BY ${keys.join(", ")}`,
    params,
  };
}
