/**
 * The `proxy` role: maps a first path segment to a remote base URL and relays the
 * request there, with CORS headers, so a browser page can reach remote servers.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import {
  listenAt,
  listenSettings,
  type RunningServer,
  serveApp,
} from "../../lib/serve.ts";
import { defineRole } from "../../lib/role.ts";
import { durationMs } from "../../lib/setting_kinds.ts";
import { allowOrigin } from "./allow_origin.ts";
import { createProxyApp } from "./app.ts";
import { createHttp1Client } from "../../lib/http1/client.ts";
import { proxyRoutes } from "./routes.ts";

/** The `proxy` role descriptor. */
export const proxyRole = defineRole({
  name: "proxy",
  summary: "Path-mapping CORS proxy: /NAME/rest is relayed to the URL of NAME",
  settings: {
    PROXY_ROUTES: proxyRoutes({
      description:
        "Registrations NAME=URL, comma-separated (api=https://example.com/v1,local=http://127.0.0.1:8080)",
    }),
    PROXY_ALLOW_ORIGIN: allowOrigin({
      description:
        "Value of Access-Control-Allow-Origin on every answer: * or one origin (https://app.example.com)",
    }),
    PROXY_TIMEOUT_MS: durationMs({
      description:
        "Longest wait for a remote's answer before 504, and longest silence mid-answer",
      default: 30_000,
      min: 1,
    }),
    ...listenSettings("PROXY", 8002),
  },
  start(settings, { log }) {
    const client = createHttp1Client();
    const app = createProxyApp({
      routes: settings.PROXY_ROUTES,
      http1: client,
      log,
      allowOrigin: settings.PROXY_ALLOW_ORIGIN,
      timeoutMs: settings.PROXY_TIMEOUT_MS,
    });
    let server: RunningServer;
    try {
      server = serveApp(app, {
        ...listenAt("PROXY", settings),
        headers: { "access-control-allow-origin": settings.PROXY_ALLOW_ORIGIN },
        log,
        name: "proxy",
      });
    } catch (error) {
      client.close();
      throw error;
    }
    for (const route of settings.PROXY_ROUTES) {
      log.info(`proxy route /${route.name} -> ${route.base}`);
    }
    return Promise.resolve({
      async stop() {
        await server.stop();
        client.close();
      },
    });
  },
});
