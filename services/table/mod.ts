/**
 * The `table` role: a web page showing the data API's reply as a sortable, filterable,
 * paged table, with a refresh button, column filters, a column chooser, the view in
 * the URL, a CSV download and an optional auto-refresh.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { listenAt, listenSettings, serveApp } from "../../lib/serve.ts";
import type { Log } from "../../lib/log.ts";
import {
  defineRole,
  type RoleDescriptor,
  type RunningRole,
} from "../../lib/role.ts";
import { optional, refine, type SettingsOf } from "../../lib/settings.ts";
import {
  boolean,
  durationMs,
  headerSecret,
  integer,
  url,
} from "../../lib/setting_kinds.ts";
import { createTableApp } from "./app.ts";
import { createTableSource } from "./table_source.ts";
import { countedSource } from "./counted_source.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { createBrowserOpener } from "./open_browser.ts";

/** Settings of the `table` role. */
export const tableSettings = {
  API_URL: url({ description: "URL of the data API the table shows" }),
  API_KEY: optional(headerSecret({
    description:
      "Bearer token sent to the data API (never sent to the browser)",
  })),
  ...listenSettings("TABLE", 3838),
  TABLE_OPEN_BROWSER: boolean({
    description: "Open the page in a browser at start",
    default: true,
  }),
  TABLE_SOURCE_MAX_BYTES: integer({
    description:
      "Bound on the bytes of the data API's reply, decoded (a few hundred bytes of br can decode to 1 GiB), and on the cells (rows × columns) of its table; past either the table shows an error",
    default: 64 * 1024 * 1024,
    min: 1,
  }),
  TABLE_REFRESH_MS: refine(
    durationMs({
      description:
        "The page re-fetches the data this often while it is visible (0: off; at least 1000 ms)",
      default: 0,
    }),
    "0 (off) or a duration of at least 1000 ms",
    (ms) => ms === 0 || ms >= 1000,
  ),
};

/** Dependencies of {@linkcode startTable}. */
export interface StartTableOptions {
  /** The role's logger. */
  log: Log;
  /** Opens the page's URL; never throws. @default the platform's opener */
  openBrowser?: (url: string) => Promise<void>;
  /** The role's metrics, when the process serves them. @default none */
  metrics?: MetricsRegistry;
}

/** Starts the table server and, when asked, opens the page in a browser. */
export function startTable(
  settings: SettingsOf<typeof tableSettings>,
  { log, openBrowser = createBrowserOpener({ log }), metrics }:
    StartTableOptions,
): Promise<RunningRole> {
  // Named in the Via of its requests to the data API: one coming back is a loop.
  const pseudonym = `homewire-table-${crypto.randomUUID().slice(0, 8)}`;
  const source = createTableSource({
    apiUrl: settings.API_URL,
    apiKey: settings.API_KEY,
    maxBytes: settings.TABLE_SOURCE_MAX_BYTES,
    via: `1.1 ${pseudonym}`,
  });
  const loadTable = metrics ? countedSource(source, metrics) : source;
  const app = createTableApp({
    loadTable,
    log,
    refreshMs: settings.TABLE_REFRESH_MS,
    metrics,
    pseudonym,
  });
  const server = serveApp(app, {
    ...listenAt("TABLE", settings),
    // Arguments win over the variables: name both.
    portSetting: "TABLE_PORT (or the port argument)",
    hostSetting: "TABLE_HOST (or the host argument)",
    log,
    name: "table",
  });
  // Not awaited: some openers only return when the browser closes.
  if (settings.TABLE_OPEN_BROWSER) void openBrowser(`${server.url}/`);
  return Promise.resolve({ stop: server.stop });
}

/**
 * Maps `table [PORT] [HOST] [OPEN_BROWSER]` to `TABLE_PORT`, `TABLE_HOST` and
 * `TABLE_OPEN_BROWSER` (arguments win over the environment).
 */
export function tableArgsToEnv(
  [port, host, openBrowser]: readonly string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  if (port !== undefined) env.TABLE_PORT = port;
  if (host !== undefined) env.TABLE_HOST = host;
  // R-style T/F too, as the original's users typed them.
  if (openBrowser !== undefined) {
    env.TABLE_OPEN_BROWSER = openBrowser.replace(/^t$/i, "true")
      .replace(/^f$/i, "false");
  }
  return env;
}

/** The `table` role descriptor. */
export const tableRole: RoleDescriptor = defineRole({
  name: "table",
  summary: "Web page showing the data API as a table (API_URL)",
  usage: "table [PORT] [HOST] [OPEN_BROWSER]",
  settings: tableSettings,
  maxArgs: 3,
  argsToEnv: tableArgsToEnv,
  series: (registry) => {
    countedSource(() => Promise.resolve(), registry);
  },
  start: (settings, { log, metrics }) => startTable(settings, { log, metrics }),
});
