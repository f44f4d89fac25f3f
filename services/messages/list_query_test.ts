import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { parseListQuery } from "./list_query.ts";

const parse = (query: string) => parseListQuery(new URLSearchParams(query));

function assertBadRequest(query: string, name: string) {
  assert.throws(
    () => parse(query),
    (error: unknown) => {
      assert.ok(error instanceof HTTPException);
      assert.equal(error.status, 400);
      assert.match(error.message, new RegExp(`^Invalid ${name} "`));
      return true;
    },
    query,
  );
}

Deno.test("parseListQuery() reads the paging forms", async (t) => {
  await t.step("_page with the default size of 10", () => {
    const { query, paging } = parse("_page=3");
    assert.equal(query.offset, 20);
    assert.equal(query.limit, 10);
    assert.deepEqual(paging, { kind: "page", page: 3, size: 10 });
  });
  await t.step("_page with _limit or _per_page", () => {
    assert.deepEqual(
      [
        parse("_page=2&_limit=5").query.offset,
        parse("_page=2&_limit=5").query.limit,
      ],
      [5, 5],
    );
    const perPage = parse("_page=4&_per_page=25").query;
    assert.deepEqual([perPage.offset, perPage.limit], [75, 25]);
  });
  await t.step("_start with _end (end exclusive) or _limit", () => {
    const sliced = parse("_start=10&_end=15");
    assert.deepEqual([sliced.query.offset, sliced.query.limit], [10, 5]);
    assert.deepEqual(sliced.paging, {
      kind: "slice",
      start: 10,
      size: 5,
      sizeParam: "_end",
    });
    const limited = parse("_start=7&_limit=3").query;
    assert.deepEqual([limited.offset, limited.limit], [7, 3]);
    const onlyLimit = parse("_limit=4").query;
    assert.deepEqual([onlyLimit.offset, onlyLimit.limit], [0, 4]);
  });
  await t.step("no paging: everything from _start (0 by default)", () => {
    const { query, paging } = parse("author=Ada");
    assert.deepEqual([query.offset, query.limit], [0, undefined]);
    assert.deepEqual(paging, { kind: "none" });
  });
});

Deno.test("parseListQuery() reads the sort forms", async (t) => {
  await t.step("id ascending by default", () => {
    assert.deepEqual(parse("").query.sort, [{
      field: "id",
      descending: false,
    }]);
  });
  await t.step("_sort with _order, in any case", () => {
    assert.deepEqual(parse("_sort=author,id&_order=DESC,asc").query.sort, [
      { field: "author", descending: true },
      { field: "id", descending: false },
    ]);
    assert.deepEqual(parse("_sort=message").query.sort, [
      { field: "message", descending: false },
    ]);
  });
  await t.step("_order alone orders the default id", () => {
    assert.deepEqual(parse("_order=desc").query.sort, [
      { field: "id", descending: true },
    ]);
  });
  await t.step("a leading minus sorts descending (v1 style)", () => {
    assert.deepEqual(parse("_sort=-id,author").query.sort, [
      { field: "id", descending: true },
      { field: "author", descending: false },
    ]);
  });
});

Deno.test("parseListQuery() reads the filters", async (t) => {
  await t.step("exact fields, repeated meaning any", () => {
    assert.deepEqual(parse("id=1&id=3&author=Ada&message=Hi").query.filter, {
      id: [1, 3],
      author: ["Ada"],
      message: ["Hi"],
    });
  });
  await t.step("_like, _ne, _gte, _lte and q", () => {
    assert.deepEqual(
      parse(
        "author_like=AD&message_like=Hé&author_ne=Bob&id_ne=2&id_gte=2&id_lte=9&q=FoX",
      ).query.filter,
      {
        authorLike: ["ad"],
        messageLike: ["hé"],
        authorNot: ["Bob"],
        idNot: [2],
        idMin: 2,
        idMax: 9,
        q: "fox",
      },
    );
  });
  await t.step(
    "id_gte and id_lte repeated: any of them, as json-server",
    () => {
      const { filter } = parse("id_gte=5&id_gte=2&id_lte=7&id_lte=9").query;
      assert.deepEqual([filter.idMin, filter.idMax], [2, 9]);
    },
  );
  await t.step("empty q and _like match everything", () => {
    assert.deepEqual(parse("q=&author_like=").query.filter, {});
  });
  await t.step("unknown parameters are ignored", () => {
    assert.deepEqual(
      parse("foo=1&_embed=x&author_gte=b").query,
      parse("").query,
    );
  });
});

Deno.test("parseListQuery() throws a 400 naming a malformed parameter", () => {
  assertBadRequest("_page=0", "_page");
  assertBadRequest("_page=abc", "_page");
  assertBadRequest("_limit=abc", "_limit");
  assertBadRequest("_limit=0", "_limit");
  assertBadRequest("_page=1&_limit=1001", "_limit");
  assertBadRequest("_page=1&_per_page=-1", "_per_page");
  assertBadRequest("_start=-1&_end=3", "_start");
  assertBadRequest("_start=5&_end=3", "_end");
  assertBadRequest("_start=0&_end=1001", "_end");
  assertBadRequest("_sort=nope", "_sort");
  assertBadRequest("_sort=-", "_sort");
  assertBadRequest("_sort=id&_order=up", "_order");
  assertBadRequest("_order=up", "_order");
  assertBadRequest("id=one", "id");
  assertBadRequest("id_gte=1.5", "id_gte");
  assertBadRequest("id_lte=x", "id_lte");
  assertBadRequest("id_ne=x", "id_ne");
});

Deno.test("parseListQuery() throws a 400 to a paging parameter the form leaves unused", () => {
  assertBadRequest("_page=1&_start=abc", "_start");
  assertBadRequest("_page=1&_end=-2", "_end");
  assertBadRequest("_page=1&_limit=10&_per_page=abc", "_per_page");
});

Deno.test("parseListQuery() throws a 400 to a text filter holding NUL", () => {
  for (const name of ["author", "message", "author_ne", "message_ne"]) {
    assertBadRequest(`${name}=a%00b`, name);
  }
  assertBadRequest("author_like=%00", "author_like");
  assertBadRequest("message_like=x%00", "message_like");
  assertBadRequest("q=%00", "q");
});

Deno.test("parseListQuery() folds needles as foldCase does, sigma and dotted I included", () => {
  const { filter } = parse("q=%CE%A3%CE%8A%CE%A3&author_like=%C4%B0STANBUL")
    .query;
  assert.equal(filter.q, "σίσ", String(filter.q));
  assert.deepEqual(filter.authorLike, ["i\u0307stanbul"]);
});
