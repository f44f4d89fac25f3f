/**
 * The table role's HTTP app: the page, its assets, and `GET /api/table`, which fetches
 * the data API on the server so the key never reaches the browser.
 *
 * @module
 */
import type { Hono } from "hono";
import { createHttpApp } from "../../lib/http.ts";
import type { Log } from "../../lib/log.ts";
import { TableFetchError } from "./table_fetch_error.ts";
import { PAGE_CSS } from "./page_css.ts";
import { PAGE_HTML } from "./page_html.ts";
import { PAGE_SCRIPT } from "./page_script.ts";
import type { Table } from "./to_table.ts";

/** Dependencies of {@linkcode createTableApp}. */
export interface TableAppOptions {
  /** Fetches the data API and applies the reply rules. */
  loadTable: () => Promise<Table>;
  /** Where failed fetches and unexpected errors are logged. */
  log: Log;
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
 * const app = createTableApp({ loadTable: createTableSource({ apiUrl }), log });
 * ```
 */
export function createTableApp(options: TableAppOptions): Hono {
  const app = createHttpApp({ log: options.log });
  app.get("/", asset(PAGE_HTML, "text/html; charset=utf-8"));
  app.get("/page.js", asset(PAGE_SCRIPT, "text/javascript; charset=utf-8"));
  app.get("/page.css", asset(PAGE_CSS, "text/css; charset=utf-8"));
  app.get("/favicon.ico", () => new Response(null, { status: 204 }));
  app.get("/api/table", async (c) => {
    c.header("cache-control", "no-store");
    try {
      const table = await options.loadTable();
      return c.json({ ...table, fetchedAt: new Date().toISOString() });
    } catch (error) {
      if (!(error instanceof TableFetchError)) throw error;
      options.log.warn(error.message);
      return c.json({ message: error.message }, 502);
    }
  });
  return app;
}
