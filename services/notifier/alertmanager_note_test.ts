import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import {
  ALERTMANAGER_MAX_BYTES,
  alertmanagerNote,
} from "./alertmanager_note.ts";
import { createNotifierApp } from "./app.ts";
import type { Notify } from "./notify.ts";
import type { Message } from "./targets/mod.ts";

const LIMITS = { title: 256, body: 4096 };

/** A version 4 payload as Alertmanager 0.25 sends it. */
function payload(overrides: Record<string, unknown> = {}) {
  return {
    receiver: "homewire",
    status: "firing",
    alerts: [
      {
        status: "firing",
        labels: {
          alertname: "HighTemperature",
          sensor: "attic",
          severity: "critical",
        },
        annotations: {
          summary: "Attic at 41 °C",
          description: "Above 35 °C for 10 minutes",
        },
        startsAt: "2026-07-01T12:00:00Z",
        endsAt: "0001-01-01T00:00:00Z",
        generatorURL: "http://prometheus.lan/graph",
        fingerprint: "a1",
      },
      {
        status: "firing",
        labels: {
          alertname: "HighTemperature",
          sensor: "loft",
          severity: "warning",
        },
        annotations: { summary: "Loft at 36 °C" },
        startsAt: "2026-07-01T12:00:00Z",
        endsAt: "0001-01-01T00:00:00Z",
        generatorURL: "http://prometheus.lan/graph",
        fingerprint: "a2",
      },
    ],
    groupLabels: { alertname: "HighTemperature" },
    commonLabels: { alertname: "HighTemperature" },
    commonAnnotations: {},
    externalURL: "http://alertmanager.lan",
    version: "4",
    groupKey: '{}:{alertname="HighTemperature"}',
    truncatedAlerts: 0,
    ...overrides,
  };
}

Deno.test("alertmanagerNote()", async (t) => {
  await t.step("a firing group: count, annotations, worst severity", () => {
    assert.deepEqual(alertmanagerNote(payload(), LIMITS), {
      title: "[FIRING:2] HighTemperature",
      body: "- Attic at 41 °C: Above 35 °C for 10 minutes\n- Loft at 36 °C",
      type: "failure",
      priority: "max",
    });
  });

  await t.step("a resolved notification is a success at low priority", () => {
    const resolved = payload({
      status: "resolved",
      alerts: [{
        status: "resolved",
        labels: { alertname: "SensorSilent", sensor: "garden" },
        annotations: {},
      }],
      groupLabels: { alertname: "SensorSilent", sensor: "garden" },
    });
    assert.deepEqual(alertmanagerNote(resolved, LIMITS), {
      title: "[RESOLVED] SensorSilent garden",
      body: "alertname=SensorSilent sensor=garden",
      type: "success",
      priority: "low",
    });
  });

  await t.step("a firing group marks its resolved alerts", () => {
    const mixed = payload();
    mixed.alerts[1]!.status = "resolved";
    const note = alertmanagerNote(mixed, LIMITS);
    assert.equal(note.title, "[FIRING:1] HighTemperature");
    assert.match(note.body, /^- \[resolved\] Loft at 36 °C$/m);
  });

  await t.step("severity words map to type and priority", () => {
    const note = (severity?: string) =>
      alertmanagerNote(
        payload({
          alerts: [{
            status: "firing",
            labels: severity === undefined ? {} : { severity },
            annotations: { summary: "x" },
          }],
        }),
        LIMITS,
      );
    assert.deepEqual(
      [note("error"), note("warning"), note("info"), note()].map((n) => [
        n.type,
        n.priority,
      ]),
      [["failure", "high"], ["warning", "default"], ["info", "default"], [
        "info",
        "default",
      ]],
    );
  });

  await t.step("title and body are cut to the limits", () => {
    const note = alertmanagerNote(payload(), { title: 8, body: 10 });
    assert.equal(note.title, "[FIRING…");
    assert.equal([...note.body].length, 10);
  });

  await t.step("anything but a version 4 payload is a 400", () => {
    for (
      const [bad, message] of [
        [[], /expected a JSON object/],
        [payload({ version: "3" }), /version "3"/],
        [payload({ version: undefined }), /version missing/],
        [payload({ status: "pending" }), /status/],
        [payload({ alerts: [] }), /alerts must be/],
        [
          payload({ alerts: [{ status: "firing", labels: { a: 1 } }] }),
          /labels/,
        ],
        [payload({ groupLabels: "x" }), /groupLabels/],
      ] as const
    ) {
      assert.throws(
        () => alertmanagerNote(bad, LIMITS),
        (error: Error & { status?: number }) =>
          error.status === 400 && message.test(error.message),
      );
    }
  });
});

Deno.test("POST /notify/alertmanager", async (t) => {
  const sent: { message: Message; tag?: string }[] = [];
  const notify: Notify = (message, tag) => {
    sent.push({ message, tag });
    return Promise.resolve({
      kind: "sent",
      deliveries: [{ target: "ntfy://h/t", ok: true, status: 200 }],
    });
  };
  const app = createNotifierApp({
    notify,
    pushbulletReply: false,
    token: "s3cret",
    log: createMemoryLog(),
  });
  const post = (body: string, token = "s3cret", query = "") =>
    app.request(`/notify/alertmanager${query}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body,
    });

  await t.step("sends one note, to the targets ?tag= selects", async () => {
    const response = await post(
      JSON.stringify(payload()),
      "s3cret",
      "?tag=ops",
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      results: [{ target: "ntfy://h/t", ok: true, status: 200 }],
    });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.message.title, "[FIRING:2] HighTemperature");
    assert.equal(sent[0]!.tag, "ops");
  });

  await t.step("needs the bearer token", async () => {
    const response = await post(JSON.stringify(payload()), "wrong");
    assert.equal(response.status, 401);
    assert.equal(sent.length, 1);
  });

  await t.step(
    "bad payloads are 400 with a message, nothing sent",
    async () => {
      for (const body of ["{", JSON.stringify(payload({ version: "2" }))]) {
        const response = await post(body);
        assert.equal(response.status, 400);
        assert.match((await response.json()).message, /Invalid/);
      }
      assert.equal(sent.length, 1);
    },
  );

  await t.step("a payload past 1 MiB is 413, nothing sent", async () => {
    const big = payload({
      commonAnnotations: { pad: "x".repeat(ALERTMANAGER_MAX_BYTES) },
    });
    const response = await post(JSON.stringify(big));
    assert.equal(response.status, 413);
    assert.match((await response.json()).message, /too large/);
    // Streamed without a declared length, too.
    const streamed = await app.request("/notify/alertmanager", {
      method: "POST",
      headers: { authorization: "Bearer s3cret" },
      body: new Blob([JSON.stringify(big)]).stream(),
    });
    assert.equal(streamed.status, 413);
    assert.equal(sent.length, 1);
  });
});
