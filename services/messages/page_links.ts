/**
 * The `Link` header of a page of the `messages` list.
 *
 * @module
 */
import type { Paging } from "./list_query.ts";

/**
 * Returns the `Link` header value (RFC 8288) of a page: `first`, `prev`, `next` and
 * `last` where they exist, each `url` with its paging parameters moved. A query
 * without paging, or with an empty `_start`…`_end` window, is one page: `first`
 * and `last` are `url` itself. Past the end, `prev` names the last page.
 *
 * @example
 * ```ts
 * pageLinks(new URL("http://h/m?_page=2&_limit=10"), { kind: "page", page: 2, size: 10 }, 35);
 * // '<http://h/m?_page=1&_limit=10>; rel="first", <http://h/m?_page=1&_limit=10>; rel="prev", …'
 * ```
 */
export function pageLinks(url: URL, paging: Paging, total: number): string {
  const links: [string, URL][] = [];
  if (paging.kind === "none") {
    links.push(["first", url], ["last", url]);
  } else if (paging.kind === "page") {
    const last = Math.max(1, Math.ceil(total / paging.size));
    const at = (page: number) => withParams(url, { _page: page });
    links.push(["first", at(1)]);
    if (paging.page > 1) {
      links.push(["prev", at(Math.min(paging.page - 1, last))]);
    }
    if (paging.page < last) links.push(["next", at(paging.page + 1)]);
    links.push(["last", at(last)]);
  } else if (paging.size === 0) {
    // `_end` = `_start`: an empty window, which no step moves.
    links.push(["first", url], ["last", url]);
  } else {
    const { start, size, sizeParam } = paging;
    const at = (from: number) =>
      withParams(url, {
        _start: from,
        ...(sizeParam === "_end" ? { _end: from + size } : {}),
      });
    const lastStart = Math.max(0, Math.ceil(total / size) - 1) * size;
    links.push(["first", at(0)]);
    // Past the end, as for pages, the previous window is the last one.
    if (start > 0) {
      links.push(["prev", at(Math.min(Math.max(0, start - size), lastStart))]);
    }
    if (start + size < total) links.push(["next", at(start + size)]);
    links.push(["last", at(lastStart)]);
  }
  return links.map(([rel, target]) => `<${target.href}>; rel="${rel}"`).join(
    ", ",
  );
}

function withParams(url: URL, values: Record<string, number>): URL {
  const next = new URL(url);
  for (const [name, value] of Object.entries(values)) {
    next.searchParams.set(name, String(value));
  }
  return next;
}
