/**
 * Debian's `prometheus-alertmanager`, started here on a free 127.0.0.1 port, takes an
 * alert through its API and delivers it to the notifier's `POST /notify/alertmanager`
 * (started through `main.ts`, bearer `NOTIFIER_TOKEN`), which sends the note to an
 * ntfy stand-in; then the alert resolves. Bad payloads sent straight to the notifier
 * are refused and send nothing.
 */
import assert from "node:assert/strict";
import { freePort, requireBinary, startMain } from "./_test_helpers.ts";
import { startServerProcess } from "./_test_server_process.ts";

const alertmanager = requireBinary("prometheus-alertmanager");

/** An ntfy server standing in: records each JSON publish and its headers. */
function ntfyStandIn() {
  const published: { headers: Headers; body: Record<string, string> }[] = [];
  const waiters: (() => void)[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      published.push({ headers: request.headers, body: await request.json() });
      waiters.splice(0).forEach((wake) => wake());
      return Response.json({ id: String(published.length), event: "message" });
    },
  );
  return {
    published,
    port: server.addr.port,
    /** Waits until `count` publishes have come, or fails after `ms`. */
    async waitFor(count: number, ms = 30_000) {
      const end = Date.now() + ms;
      while (published.length < count) {
        if (Date.now() > end) {
          throw new Error(`${published.length} publishes, not ${count}`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => server.shutdown(),
  };
}

Deno.test({
  name:
    "Alertmanager delivers to POST /notify/alertmanager, which sends to ntfy",
  ignore: alertmanager.ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    assert.ok(alertmanager.path, "prometheus-alertmanager is not installed");
    const ntfy = ntfyStandIn();
    const notifierPort = freePort();
    const notifier = startMain(["notifier"], {
      env: {
        NOTIFIER_HOST: "127.0.0.1",
        NOTIFIER_PORT: String(notifierPort),
        NOTIFIER_URLS: `ntfy://127.0.0.1:${ntfy.port}/alerts`,
        NOTIFIER_TOKEN: "am-s3cret",
      },
    });
    const amPort = freePort();
    let am: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    try {
      await notifier.waitFor(/notifier listening on/);
      am = await startServerProcess({
        path: alertmanager.path,
        prefix: "homewire-alertmanager-",
        readyUrl: `http://127.0.0.1:${amPort}/-/ready`,
        async args(dir) {
          await Deno.writeTextFile(
            `${dir}/alertmanager.yml`,
            JSON.stringify({
              route: {
                receiver: "homewire",
                group_by: ["alertname"],
                group_wait: "1s",
                group_interval: "1s",
                repeat_interval: "1h",
              },
              receivers: [{
                name: "homewire",
                webhook_configs: [{
                  url: `http://127.0.0.1:${notifierPort}/notify/alertmanager`,
                  send_resolved: true,
                  http_config: {
                    authorization: { type: "Bearer", credentials: "am-s3cret" },
                  },
                }],
              }],
            }),
          );
          return [
            `--config.file=${dir}/alertmanager.yml`,
            `--storage.path=${dir}/data`,
            `--web.listen-address=127.0.0.1:${amPort}`,
            "--cluster.listen-address=",
          ];
        },
      });
      const startsAt = new Date().toISOString();
      const alert = {
        labels: {
          alertname: "HighTemperature",
          severity: "critical",
          sensor: "attic",
        },
        annotations: {
          summary: "Attic at 41 °C",
          description: "Above 35 °C for 10 minutes",
        },
        startsAt,
      };
      const post = async (alerts: unknown[]) => {
        const response = await fetch(
          `http://127.0.0.1:${amPort}/api/v2/alerts`,
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(alerts),
          },
        );
        await response.body?.cancel();
        assert.equal(response.status, 200);
      };

      await t.step(
        "a firing alert becomes one note at max priority",
        async () => {
          await post([alert]);
          await ntfy.waitFor(1);
          const [note] = ntfy.published;
          assert.deepEqual(note!.body, {
            topic: "alerts",
            title: "[FIRING:1] HighTemperature",
            message: "Attic at 41 °C: Above 35 °C for 10 minutes",
          });
          assert.equal(note!.headers.get("x-priority"), "max");
        },
      );

      await t.step("its resolution is sent as such", async () => {
        await post([{ ...alert, endsAt: new Date().toISOString() }]);
        await ntfy.waitFor(2);
        const note = ntfy.published[1]!;
        assert.equal(note.body.title, "[RESOLVED] HighTemperature");
        assert.equal(
          note.body.message,
          "Attic at 41 °C: Above 35 °C for 10 minutes",
        );
        assert.equal(note.headers.get("x-priority"), "low");
      });

      await t.step("bad payloads are refused and send nothing", async () => {
        const url = `http://127.0.0.1:${notifierPort}/notify/alertmanager`;
        const send = async (body: string, token = "am-s3cret") => {
          const response = await fetch(url, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
            },
            body,
          });
          return { status: response.status, body: await response.json() };
        };
        const v3 = await send(JSON.stringify({ version: "3", alerts: [] }));
        assert.equal(v3.status, 400);
        assert.match(v3.body.message, /version "3"/);
        const malformed = await send('{"version":"4","alerts":');
        assert.equal(malformed.status, 400);
        assert.match(malformed.body.message, /Invalid Alertmanager payload/);
        const big = await send(
          JSON.stringify({ version: "4", pad: "x".repeat(1024 * 1024) }),
        );
        assert.equal(big.status, 413);
        assert.match(big.body.message, /too large/);
        const stranger = await send("{}", "wrong");
        assert.equal(stranger.status, 401);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(ntfy.published.length, 2);
      });
    } finally {
      await am?.stop();
      assert.equal(await notifier.stop(), 0);
      await ntfy.close();
    }
  },
});
