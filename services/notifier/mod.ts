/**
 * The `notifier` role: `GET /note/{title}/{body}` sends a push note through the
 * Pushbullet API (or any server speaking its `/v2/pushes` call).
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { listenAt, listenSettings, serveApp } from "../../lib/serve.ts";
import { defineRole, type RoleDescriptor } from "../../lib/role.ts";
import { optional, type SettingsOf } from "../../lib/settings.ts";
import { durationMs, headerSecret, url } from "../../lib/setting_kinds.ts";
import { createNotifierApp } from "./app.ts";
import { createPushClient } from "./push_client.ts";
import { tokenFileSetting } from "./token_file_setting.ts";

/** Every setting of the notifier role. */
export const notifierSettings = {
  ...listenSettings("NOTIFIER", 8004),
  PUSHBULLET_TOKEN: optional(headerSecret({
    description:
      "Pushbullet access token (or set PUSHBULLET_CONFIG); wins when both are set",
  })),
  PUSHBULLET_CONFIG: optional(tokenFileSetting({
    description:
      "Path of a file holding the access token: the token alone, a NAME=token line, or JSON with a token member",
    alternative: "PUSHBULLET_TOKEN",
  })),
  PUSH_BASE_URL: url({
    description: "Base URL of the push API",
    default: "https://api.pushbullet.com",
  }),
  PUSH_TIMEOUT_MS: durationMs({
    description: "Longest wait for the push API's reply",
    default: 10_000,
    min: 1,
  }),
};

type NotifierSettings = SettingsOf<typeof notifierSettings>;

/** The push token and where it came from; `undefined` when neither setting is set. */
function pushToken(
  settings: Partial<NotifierSettings>,
): { token: string; source: string } | undefined {
  if (settings.PUSHBULLET_TOKEN !== undefined) {
    return { token: settings.PUSHBULLET_TOKEN, source: "PUSHBULLET_TOKEN" };
  }
  if (settings.PUSHBULLET_CONFIG !== undefined) {
    const { path, token } = settings.PUSHBULLET_CONFIG;
    return { token, source: `the file "${path}"` };
  }
  return undefined;
}

/**
 * The `notifier` role descriptor. Besides the per-setting checks, start-up stops with
 * a settings problem when neither `PUSHBULLET_TOKEN` nor `PUSHBULLET_CONFIG` is set.
 */
export const notifierRole: RoleDescriptor = defineRole({
  name: "notifier",
  summary: "Turns GET /note/{title}/{body} into a Pushbullet note",
  settings: notifierSettings,
  // A token or token file that failed to read is reported on its own line already.
  check: (settings, failed) =>
    failed.has("PUSHBULLET_TOKEN") || failed.has("PUSHBULLET_CONFIG") ||
      pushToken(settings)
      ? []
      : [
        "Missing PUSHBULLET_TOKEN or PUSHBULLET_CONFIG: set the Pushbullet access token, or the path of a file holding it",
      ],
  start(settings, { log }) {
    // check() above guarantees a token.
    const { token, source } = pushToken(settings)!;
    log.info(`Push token from ${source}`);
    const push = createPushClient({
      baseUrl: settings.PUSH_BASE_URL,
      token,
      timeoutMs: settings.PUSH_TIMEOUT_MS,
    });
    const server = serveApp(createNotifierApp({ push, log }), {
      ...listenAt("NOTIFIER", settings),
      log,
      name: "notifier",
    });
    return Promise.resolve({ stop: server.stop });
  },
});
