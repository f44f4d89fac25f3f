/**
 * The table role's HTTP app: the page, its assets, `GET /api/table`, which fetches
 * the data API on the server so the key never reaches the browser, and
 * `GET /api/table.csv`, the rows of a view (its URL parameters) as CSV.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { headLength } from "../../lib/head_length.ts";
import { createHttpApp } from "../../lib/http.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzHandler } from "../../lib/readyz.ts";
import type { Log } from "../../lib/log.ts";
import { TableFetchError } from "./table_fetch_error.ts";
import { PAGE_CSS } from "./page_css.ts";
import { pageHtml } from "./page_html.ts";
import { PAGE_SCRIPT } from "./page_script.ts";
import type { Table } from "./to_table.ts";
import { toCsv } from "./to_csv.ts";
import { readView, viewRows } from "./table_view.ts";

/** Dependencies of {@linkcode createTableApp}. */
export interface TableAppOptions {
  /** Fetches the data API and applies the reply rules. */
  loadTable: () => Promise<Table>;
  /** Where failed fetches and unexpected errors are logged. */
  log: Log;
  /** The page re-fetches every so many milliseconds while visible; 0 is off. @default 0 */
  refreshMs?: number;
  /** The role's metrics: every request counted and timed. @default none */
  metrics?: MetricsRegistry;
  /**
   * This table's name in the `Via` header of its requests to the data API: a request
   * for the table whose `Via` names it came round a loop (`API_URL` points back at the
   * table) and gets 508. @default none: no check
   */
  pseudonym?: string;
}

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

function asset(body: string, type: string): () => Response {
  return () =>
    new Response(body, {
      headers: { ...SECURITY_HEADERS, "content-type": type },
    });
}

/**
 * Builds the table app.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { createTableSource } from "./table_source.ts";
 *
 * const app = createTableApp({
 *   loadTable: createTableSource({ apiUrl: "http://127.0.0.1:8003/data" }),
 *   log: createLog("table"),
 * });
 * ```
 */
export function createTableApp(options: TableAppOptions): Hono {
  const app = createHttpApp({ log: options.log });
  if (options.metrics) app.use(httpMetrics(options.metrics));
  app.use(headLength());
  // Ready once started: a failing data API is the page's to show, not a reason to
  // take the page away.
  app.get("/readyz", readyzHandler(() => undefined));
  const html = pageHtml({ refreshMs: options.refreshMs ?? 0 });
  app.get("/", asset(html, "text/html; charset=utf-8"));
  app.get("/page.js", asset(PAGE_SCRIPT, "text/javascript; charset=utf-8"));
  app.get("/page.css", asset(PAGE_CSS, "text/css; charset=utf-8"));
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));

  /** The data API's table, or a 502 response thrown with its message. */
  async function load(c: Context): Promise<Table> {
    c.header("cache-control", "no-store");
    const { pseudonym } = options;
    if (pseudonym && c.req.header("via")?.includes(pseudonym)) {
      // Fetching again would send this very request round the loop once more.
      const message =
        "This request already passed through this table (its Via says so): API_URL points back at the table";
      options.log.warn(message);
      throw new HTTPException(508, { res: c.json({ message }, 508) });
    }
    try {
      return await options.loadTable();
    } catch (error) {
      if (!(error instanceof TableFetchError)) throw error;
      options.log.warn(error.message);
      throw new HTTPException(502, {
        res: c.json({ message: error.message }, 502),
      });
    }
  }

  app.get("/api/table", async (c) => {
    const table = await load(c);
    return c.json({ ...table, fetchedAt: new Date().toISOString() });
  });
  app.get("/api/table.csv", async (c) => {
    const { view, problems } = readView(new URL(c.req.url).searchParams);
    if (problems.length > 0) {
      throw new HTTPException(400, { message: problems.join("; ") });
    }
    const table = await load(c);
    const { visible, rows } = viewRows(table, view);
    const csv = toCsv(
      visible.map((index) => table.columns[index]!),
      rows.map((row) => visible.map((index) => row[index] ?? null)),
    );
    return c.body(csv, 200, {
      "content-type": "text/csv; charset=utf-8; header=present",
      "content-disposition": 'attachment; filename="table.csv"',
      "x-content-type-options": "nosniff",
    });
  });
  return app;
}
