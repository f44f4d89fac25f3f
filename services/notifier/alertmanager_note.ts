/**
 * Alertmanager's webhook payload (version 4) as one note: a title such as
 * `[FIRING:2] HighTemperature`, a body from each alert's `summary` and
 * `description` annotations, and the `severity` label as the note's type and
 * priority.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { bodyText } from "../../lib/body_text.ts";
import { preview } from "../../lib/preview.ts";
import type { Message, NotePriority, NotifyType } from "./targets/mod.ts";

/** The largest webhook payload taken, in bytes (1 MiB); a larger one is a 413. */
export const ALERTMANAGER_MAX_BYTES = 1024 * 1024;

/** One alert of the payload, as far as the note needs it. */
interface Alert {
  status: "firing" | "resolved";
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * Reads the request's JSON body as an Alertmanager payload and returns its note.
 * Anything but a version 4 payload is a 400 naming what is wrong.
 */
export async function readAlertmanagerNote(
  c: Context,
  limits: { title: number; body: number },
): Promise<Message> {
  let payload: unknown;
  try {
    payload = JSON.parse(await bodyText(c));
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    throw invalid("the body is not JSON");
  }
  return alertmanagerNote(payload, limits);
}

/**
 * The note of an Alertmanager webhook payload. The title is Alertmanager's own
 * default: `[FIRING:<alerts firing>]` or `[RESOLVED]`, then the values of the
 * group labels (the alert name when the group has none). The body has one line per
 * alert (`summary: description`, or its labels when it has neither annotation),
 * resolved ones marked as such while the group still fires. The highest `severity`
 * among the firing alerts gives the type and priority: `critical` is a `failure`
 * at `max` priority, `error` a `failure` at `high`, `warning` a `warning`, anything
 * else `info`; a resolved notification is a `success` at `low` priority. Title and
 * body are cut to `limits` characters.
 *
 * @example
 * ```ts
 * const note = alertmanagerNote({
 *   version: "4",
 *   status: "firing",
 *   groupLabels: { alertname: "HighTemperature" },
 *   alerts: [{
 *     status: "firing",
 *     labels: { alertname: "HighTemperature", severity: "warning" },
 *     annotations: { summary: "Attic at 41 °C" },
 *   }],
 * }, { title: 256, body: 4096 });
 * note.title; // "[FIRING:1] HighTemperature"
 * ```
 */
export function alertmanagerNote(
  payload: unknown,
  limits: { title: number; body: number },
): Message {
  if (!isRecord(payload)) throw invalid("expected a JSON object");
  if (payload.version !== "4") {
    throw invalid(
      `version ${
        payload.version === undefined
          ? "missing"
          : `"${preview(String(payload.version))}"`
      }: only Alertmanager's version 4 payload is read`,
    );
  }
  const status = payload.status;
  if (status !== "firing" && status !== "resolved") {
    throw invalid('status must be "firing" or "resolved"');
  }
  if (!Array.isArray(payload.alerts) || payload.alerts.length === 0) {
    throw invalid("alerts must be a non-empty list");
  }
  const alerts = payload.alerts.map((alert, i) => readAlert(alert, i));
  const groupLabels = payload.groupLabels === undefined
    ? {}
    : strings(payload.groupLabels, "groupLabels");
  const firing = alerts.filter((a) => a.status === "firing");
  const name = Object.keys(groupLabels).sort().map((k) => groupLabels[k])
    .join(" ") ||
    [...new Set(alerts.map((a) => a.labels.alertname ?? ""))].join(" ")
      .trim() ||
    "alert";
  const title = status === "firing"
    ? `[FIRING:${firing.length}] ${name}`
    : `[RESOLVED] ${name}`;
  const lines = alerts.map((alert) => {
    const { summary, description } = alert.annotations;
    const text = summary && description
      ? `${summary}: ${description}`
      : summary || description || labelText(alert.labels);
    const mark = status === "firing" && alert.status === "resolved"
      ? "[resolved] "
      : "";
    return alerts.length > 1 ? `- ${mark}${text}` : `${mark}${text}`;
  });
  const { type, priority } = status === "resolved"
    ? { type: "success" as const, priority: "low" as const }
    : severityNote(firing.map((a) => a.labels.severity ?? ""));
  return {
    title: cut(title, limits.title),
    body: cut(lines.join("\n"), limits.body),
    type,
    priority,
  };
}

const SEVERITIES: [RegExp, NotifyType, NotePriority][] = [
  [/^(critical|crit|emergency|page|fatal)$/i, "failure", "max"],
  [/^(error|err|high|major)$/i, "failure", "high"],
  [/^(warning|warn|medium)$/i, "warning", "default"],
];

/** The type and priority of the most severe of `severities`. */
function severityNote(
  severities: readonly string[],
): { type: NotifyType; priority: NotePriority } {
  for (const [pattern, type, priority] of SEVERITIES) {
    if (severities.some((s) => pattern.test(s))) return { type, priority };
  }
  return { type: "info", priority: "default" };
}

function readAlert(value: unknown, index: number): Alert {
  if (!isRecord(value)) throw invalid(`alerts[${index}] is not an object`);
  if (value.status !== "firing" && value.status !== "resolved") {
    throw invalid(`alerts[${index}].status must be "firing" or "resolved"`);
  }
  return {
    status: value.status,
    labels: strings(value.labels ?? {}, `alerts[${index}].labels`),
    annotations: strings(
      value.annotations ?? {},
      `alerts[${index}].annotations`,
    ),
  };
}

/** `value` as a map of strings, or a 400 naming `what`. */
function strings(value: unknown, what: string): Record<string, string> {
  if (
    !isRecord(value) ||
    Object.values(value).some((v) => typeof v !== "string")
  ) {
    throw invalid(`${what} must map names to strings`);
  }
  return value as Record<string, string>;
}

function labelText(labels: Record<string, string>): string {
  return Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(" ");
}

function cut(text: string, limit: number): string {
  const characters = [...text];
  return characters.length <= limit
    ? text
    : characters.slice(0, limit - 1).join("") + "…";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(what: string): HTTPException {
  return new HTTPException(400, {
    message: `Invalid Alertmanager payload: ${what}`,
  });
}
