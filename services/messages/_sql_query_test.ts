import assert from "node:assert/strict";
import { parseListQuery } from "./list_query.ts";
import { type SqlDialect, sqlQuery } from "./_sql_query.ts";

const NUMBERED: SqlDialect = {
  placeholder: (n) => `$${n}`,
  contains: (column, needle) => `strpos(lower(${column}), ${needle}) > 0`,
  sortKey: (column) => `${column} COLLATE "C"`,
  text: (column) => column,
};

const sql = (query: string) =>
  sqlQuery(parseListQuery(new URLSearchParams(query)).query, NUMBERED);

Deno.test("sqlQuery() keeps values out of the SQL text", () => {
  const { where, params } = sql(
    "author=x'); DROP TABLE messages;--&id=1&id=2&q=Hé",
  );
  assert.ok(!where.includes("DROP"));
  assert.deepEqual(params, [1, 2, "x'); DROP TABLE messages;--", "hé", "hé"]);
  assert.match(where, /id IN \(\$1, \$2\)/);
  assert.match(where, /author IN \(\$3\)/);
  assert.match(
    where,
    /strpos\(lower\(author\), \$4\) > 0 OR strpos\(lower\(message\), \$5\) > 0/,
  );
});

Deno.test("sqlQuery() always bounds ids to the safe range and ends ties by id", () => {
  const plain = sql("");
  assert.match(
    plain.where,
    /^WHERE id BETWEEN -9007199254740991 AND 9007199254740991$/,
  );
  assert.equal(plain.orderBy, "ORDER BY id");
  assert.equal(
    sql("_sort=-author,message").orderBy,
    'ORDER BY author COLLATE "C" DESC, message COLLATE "C", id',
  );
  assert.equal(
    sql("_sort=-id,author").orderBy,
    'ORDER BY id DESC, author COLLATE "C"',
  );
});

Deno.test("sqlQuery() turns _ne, _like, _gte and _lte into conditions", () => {
  const { where, params } = sql(
    "id_ne=3&author_ne=Bob&message_like=A&message_like=b&id_gte=2&id_lte=9",
  );
  assert.match(where, /id NOT IN \(\$1\)/);
  assert.match(where, /author NOT IN \(\$2\)/);
  assert.match(
    where,
    /\(strpos\(lower\(message\), \$3\) > 0 OR strpos\(lower\(message\), \$4\) > 0\)/,
  );
  assert.match(where, /id >= \$5 AND id <= \$6/);
  assert.deepEqual(params, [3, "Bob", "a", "b", 2, 9]);
});
