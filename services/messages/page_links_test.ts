import assert from "node:assert/strict";
import { pageLinks } from "./page_links.ts";

Deno.test("pageLinks() gives first, prev, next and last where they exist", async (t) => {
  const url = new URL("http://h/m?_page=2&_limit=10&q=a");
  const links = (paging: Parameters<typeof pageLinks>[1], total: number) =>
    Object.fromEntries(
      pageLinks(url, paging, total).split(", ").map((link) => {
        const [, target, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(link)!;
        return [rel!, new URL(target!).search];
      }),
    );
  await t.step("a middle page", () => {
    assert.deepEqual(links({ kind: "page", page: 2, size: 10 }, 35), {
      first: "?_page=1&_limit=10&q=a",
      prev: "?_page=1&_limit=10&q=a",
      next: "?_page=3&_limit=10&q=a",
      last: "?_page=4&_limit=10&q=a",
    });
  });
  await t.step("the only page has neither prev nor next", () => {
    assert.deepEqual(
      Object.keys(links({ kind: "page", page: 1, size: 10 }, 3)),
      [
        "first",
        "last",
      ],
    );
    assert.deepEqual(
      Object.keys(links({ kind: "page", page: 1, size: 10 }, 0)),
      [
        "first",
        "last",
      ],
    );
  });
  await t.step("slices move _start and _end", () => {
    const sliced = new URL("http://h/m?_start=10&_end=20");
    const rels = pageLinks(
      sliced,
      { kind: "slice", start: 10, size: 10, sizeParam: "_end" },
      25,
    );
    assert.match(rels, /_start=0&_end=10>; rel="first"/);
    assert.match(rels, /_start=0&_end=10>; rel="prev"/);
    assert.match(rels, /_start=20&_end=30>; rel="next"/);
    assert.match(rels, /_start=20&_end=30>; rel="last"/);
  });
  await t.step(
    "an empty window names itself, never NaN nor a step in place",
    () => {
      const empty = new URL("http://h/m?_start=4&_end=4");
      const rels = pageLinks(
        empty,
        { kind: "slice", start: 4, size: 0, sizeParam: "_end" },
        25,
      );
      assert.ok(!rels.includes("NaN"), rels);
      assert.equal(
        rels,
        '<http://h/m?_start=4&_end=4>; rel="first", <http://h/m?_start=4&_end=4>; rel="last"',
      );
    },
  );
  await t.step("a slice past the end: prev is the last window", () => {
    const past = new URL("http://h/m?_start=500&_limit=10");
    const rels = pageLinks(
      past,
      { kind: "slice", start: 500, size: 10, sizeParam: "_limit" },
      25,
    );
    assert.match(rels, /_start=20&_limit=10>; rel="prev"/);
    assert.match(rels, /_start=20&_limit=10>; rel="last"/);
    assert.ok(!rels.includes('rel="next"'), rels);
  });
});
