/**
 * The `notifier` role: `GET /note/{title}/{body}` and `POST /notify` send a
 * notification to every configured target (Apprise URLs: Pushbullet, ntfy, Gotify,
 * Pushover, Telegram, Discord, JSON).
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
import { createDedupe } from "./dedupe.ts";
import { createDeliver } from "./deliver.ts";
import { createNotify } from "./notify.ts";
import { notifierMetrics } from "./notifier_metrics.ts";
import {
  type TaggedTarget,
  targetConfigSetting,
  targetUrlsSetting,
} from "./target_settings.ts";
import { pushbulletTarget } from "./targets/mod.ts";
import { tokenFileSetting } from "./token_file_setting.ts";

/** Every setting of the notifier role. */
export const notifierSettings = {
  ...listenSettings("NOTIFIER", 8004),
  NOTIFIER_URLS: optional(targetUrlsSetting({
    description:
      "Notification targets as Apprise URLs (pbul://, ntfy://, ntfys://, gotify://, gotifys://, pover://, tgram://, discord://, json://, jsons://), separated by commas, blanks or line breaks",
  })),
  NOTIFIER_CONFIG: optional(targetConfigSetting({
    description:
      "Path of an Apprise text configuration file: one [tag[,tag]=]URL a line, # comments",
  })),
  NOTIFIER_TOKEN: optional(headerSecret({
    description:
      "Bearer token every send needs (Authorization: Bearer <token>); unset: anyone who reaches the port can send",
  })),
  NOTIFIER_DEDUPE_MS: durationMs({
    description:
      "Window in which the same title, body and type is sent once (0: off)",
    default: 0,
  }),
  NOTIFIER_TIMEOUT_MS: optional(durationMs({
    description:
      "Longest time for one target's call, retries included (default: PUSH_TIMEOUT_MS)",
    min: 1,
  })),
  PUSHBULLET_TOKEN: optional(headerSecret({
    description:
      "Pushbullet access token (or set PUSHBULLET_CONFIG); wins when both are set; one more pbul:// target",
  })),
  PUSHBULLET_CONFIG: optional(tokenFileSetting({
    description:
      "Path of a file holding the access token: the token alone, a NAME=token line, or JSON with a token member",
    alternative: "PUSHBULLET_TOKEN",
  })),
  PUSH_BASE_URL: url({
    description: "Base URL of the push API (Pushbullet, pbul://)",
    default: "https://api.pushbullet.com",
  }),
  PUSH_TIMEOUT_MS: durationMs({
    description:
      "Longest wait for the push API's reply; the default of NOTIFIER_TIMEOUT_MS",
    default: 10_000,
    min: 1,
  }),
  PUSHOVER_BASE_URL: url({
    description: "Base URL of the Pushover API (pover://)",
    default: "https://api.pushover.net",
  }),
  TELEGRAM_BASE_URL: url({
    description: "Base URL of the Telegram Bot API (tgram://)",
    default: "https://api.telegram.org",
  }),
  DISCORD_BASE_URL: url({
    description: "Base URL of Discord's webhooks (discord://)",
    default: "https://discord.com",
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

/** Every target: the Pushbullet token's, then NOTIFIER_URLS', then the file's. */
function allTargets(settings: Partial<NotifierSettings>): TaggedTarget[] {
  const push = pushToken(settings);
  return [
    ...(push
      ? [{ target: pushbulletTarget(push.token), tags: new Set<string>() }]
      : []),
    ...settings.NOTIFIER_URLS ?? [],
    ...settings.NOTIFIER_CONFIG ?? [],
  ];
}

const TARGET_SETTINGS = [
  "PUSHBULLET_TOKEN",
  "PUSHBULLET_CONFIG",
  "NOTIFIER_URLS",
  "NOTIFIER_CONFIG",
] as const;

/**
 * The `notifier` role descriptor. Besides the per-setting checks, start-up stops with
 * a settings problem when no target is configured at all.
 */
export const notifierRole: RoleDescriptor = defineRole({
  name: "notifier",
  summary:
    "Sends GET /note/{title}/{body} and POST /notify to Pushbullet or any Apprise URL",
  settings: notifierSettings,
  // A setting that failed to read is reported on its own line already.
  check: (settings, failed) =>
    TARGET_SETTINGS.some((name) => failed.has(name)) ||
      allTargets(settings).length > 0
      ? []
      : [
        "Missing PUSHBULLET_TOKEN or PUSHBULLET_CONFIG: set the Pushbullet access token, or the path of a file holding it, or give targets as Apprise URLs in NOTIFIER_URLS or NOTIFIER_CONFIG",
      ],
  series: (registry) => {
    notifierMetrics(registry);
  },
  start(settings, { log, metrics: registry }) {
    const push = pushToken(settings);
    if (push) log.info(`Push token from ${push.source}`);
    const targets = allTargets(settings);
    log.info(
      `Notification targets: ${
        targets.map(({ target, tags }) =>
          tags.size
            ? `${target.display} [${[...tags].join(",")}]`
            : target.display
        ).join(", ")
      }`,
    );
    if (settings.NOTIFIER_TOKEN === undefined) {
      log.warn(
        "NOTIFIER_TOKEN is not set: anyone who reaches the notifier's port can send notifications",
      );
    }
    const metrics = registry && notifierMetrics(registry);
    const deliver = createDeliver({
      onRetry: metrics && ((target) => metrics.retry(target.scheme)),
      bases: {
        pushbullet: settings.PUSH_BASE_URL,
        pushover: settings.PUSHOVER_BASE_URL,
        telegram: settings.TELEGRAM_BASE_URL,
        discord: settings.DISCORD_BASE_URL,
      },
      timeoutMs: settings.NOTIFIER_TIMEOUT_MS ?? settings.PUSH_TIMEOUT_MS,
    });
    const notify = createNotify({
      targets,
      deliver,
      dedupe: createDedupe(settings.NOTIFIER_DEDUPE_MS),
      log,
      metrics,
    });
    const app = createNotifierApp({
      notify,
      pushbulletReply: targets.length === 1 &&
        targets[0]!.target.scheme === "pbul",
      token: settings.NOTIFIER_TOKEN,
      log,
      metrics: registry,
    });
    const server = serveApp(app, {
      ...listenAt("NOTIFIER", settings),
      log,
      name: "notifier",
    });
    return Promise.resolve({ stop: server.stop });
  },
});
