/**
 * The `data-api` role: a bearer-token protected JSON API returning 20 contacts.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { listenAt, listenSettings, serveApp } from "../../lib/serve.ts";
import { defineRole, type RoleDescriptor } from "../../lib/role.ts";
import { headerSecret } from "../../lib/setting_kinds.ts";
import { createDataApiApp } from "./app.ts";

/** Settings of the `data-api` role. */
export const dataApiSettings = {
  DATA_API_TOKEN: headerSecret({
    description: "Bearer token clients of GET /data must send",
  }),
  ...listenSettings("DATA_API", 8003),
};

/** The `data-api` role descriptor. */
export const dataApiRole: RoleDescriptor = defineRole({
  name: "data-api",
  summary: "Token-protected contacts API (GET /data)",
  settings: dataApiSettings,
  start(settings, { log, metrics }) {
    const app = createDataApiApp({
      token: settings.DATA_API_TOKEN,
      log,
      metrics,
    });
    const server = serveApp(app, {
      ...listenAt("DATA_API", settings),
      log,
      name: "data-api",
    });
    return Promise.resolve({ stop: server.stop });
  },
});
