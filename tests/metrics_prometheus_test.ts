/**
 * Every role watched by a real Prometheus (Debian's `prometheus`, started here on a
 * free 127.0.0.1 port with a generated scrape configuration): roles started through
 * `main.ts`, several in one process (the demo set: messages, data-api, table; the
 * collector and the forwarder) and one per process (proxy, notifier), each with
 * `METRICS_PORT`. After traffic (hostile paths included), `promtool check metrics`
 * accepts every `/metrics` output, and the series are read back through
 * Prometheus' query API. The upstream stand-in also plays the ntfy server, the
 * forwarder's endpoint and the collector's InfluxDB write endpoint (it accepts
 * anything); the queue is a real fauxqs.
 */
import assert from "node:assert/strict";
import {
  freePort,
  type MainProcess,
  makeFakeIio,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";
import { startServerProcess } from "./_test_server_process.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";

const prometheus = requireBinary("prometheus");
const promtool = requireBinary("promtool");

/** Runs `promtool check metrics` on `text`; its output when it refuses it. */
async function promtoolProblems(text: string): Promise<string | undefined> {
  const child = new Deno.Command(promtool.path!, {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  const said = new TextDecoder().decode(output.stdout) +
    new TextDecoder().decode(output.stderr);
  return output.success && said.trim() === "" ? undefined : said;
}

/** An upstream for the proxy and an ntfy server for the notifier, in one. */
function upstreamStandIn() {
  let requests = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      requests++;
      await request.body?.cancel();
      return Response.json({ ok: true }, {
        headers: { "cache-control": "max-age=60" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

/** Waits until the query API gives a non-empty result for `query`. */
async function queryUntil(
  base: string,
  query: string,
  accept: (
    values: { metric: Record<string, string>; value: number }[],
  ) => boolean,
  timeoutMs = 20_000,
) {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (true) {
    // Prometheus returns 503 (text) until its storage is up: asked again then.
    const response = await fetch(
      `${base}/api/v1/query?query=${encodeURIComponent(query)}`,
    );
    const text = await response.text();
    let body: { status?: string; data?: { result: unknown[] } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON yet
    }
    last = response.ok ? body : `${response.status} ${text}`;
    if (body.status === "success" && body.data) {
      const values = (body.data.result as {
        metric: Record<string, string>;
        value: [number, string];
      }[]).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
      if (values.length > 0 && accept(values)) return values;
    }
    if (Date.now() > end) {
      throw new Error(
        `No acceptable response to ${query} within ${timeoutMs} ms: ${
          JSON.stringify(last)
        }`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

Deno.test({
  name: "Prometheus scrapes every role's /metrics through main.ts",
  ignore: prometheus.ignore || promtool.ignore,
  async fn(t) {
    assert.ok(prometheus.path && promtool.path, "prometheus is not installed");
    const upstream = upstreamStandIn();
    const weather = startWeatherStandIn();
    const iio = await makeFakeIio();
    const fauxqs = await startFauxqs();
    const queue = await fauxqs.createQueue("watched");
    await fauxqs.send(queue, ["one", "two"]);
    const ports = {
      pair: freePort(),
      demo: freePort(),
      proxy: freePort(),
      notifier: freePort(),
      messages: freePort(),
      dataApi: freePort(),
      table: freePort(),
      proxyHttp: freePort(),
      notifierHttp: freePort(),
      prometheus: freePort(),
    };
    const processes: MainProcess[] = [];
    const start = (args: string[], env: Record<string, string>) => {
      const main = startMain(args, {
        env: { METRICS_HOST: "127.0.0.1", ...env },
      });
      processes.push(main);
      return main;
    };
    const demo = start([], {
      METRICS_PORT: String(ports.demo),
      MESSAGES_PORT: String(ports.messages),
      DATA_API_PORT: String(ports.dataApi),
      TABLE_PORT: String(ports.table),
      TABLE_OPEN_BROWSER: "false",
      DATA_API_TOKEN: "t0ken",
    });
    const proxy = start(["proxy"], {
      METRICS_PORT: String(ports.proxy),
      PROXY_PORT: String(ports.proxyHttp),
      PROXY_ROUTES: `up=${upstream.url}`,
      PROXY_CACHE_MS: "60000",
    });
    const notifier = start(["notifier"], {
      METRICS_PORT: String(ports.notifier),
      NOTIFIER_PORT: String(ports.notifierHttp),
      NOTIFIER_URLS: `ntfy://${upstream.url.slice(7)}/alerts`,
    });
    const pair = start(["collector", "forwarder"], {
      METRICS_PORT: String(ports.pair),
      TSDB_HOST: "127.0.0.1",
      TSDB_PORT: upstream.url.split(":")[2]!,
      TSDB_BUFFER_PATH: ":memory:",
      WEATHER_BASE_URL: weather.url,
      WEATHER_API_KEY: "k3y",
      PRESSURE_SENSOR: "iio",
      PRESSURE_IIO_ROOT: iio,
      ...fauxqs.env(queue),
      HTTP_ENDPOINT: `${upstream.url}/hook`,
      AUTH_BEARER_TOKEN: "Bearer hook",
      QUEUE_WAIT_TIME_SECONDS: "1",
    });
    let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    try {
      await demo.waitFor(/Demo running/);
      await proxy.waitFor(/proxy listening on/);
      await notifier.waitFor(/notifier listening on/);
      await pair.waitFor(/metrics listening on/);
      const targets = [ports.demo, ports.proxy, ports.notifier, ports.pair];

      await t.step(
        "every role responds to /readyz, the metrics endpoint too",
        async () => {
          for (
            const port of [
              ports.messages,
              ports.dataApi,
              ports.table,
              ports.proxyHttp,
              ports.notifierHttp,
              ...targets,
            ]
          ) {
            const response = await fetch(`http://127.0.0.1:${port}/readyz`);
            assert.equal(response.status, 200, `port ${port}`);
            assert.deepEqual(await response.json(), { status: "ready" });
          }
        },
      );

      // Traffic, hostile paths among it.
      const messages = `http://127.0.0.1:${ports.messages}`;
      const created = await fetch(`${messages}/api/message/resource`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ author: "test", message: "hello" }),
      });
      assert.equal(created.status, 201);
      await created.body?.cancel();
      for (
        const path of [
          "/api/message/resource",
          '/api/message/resource/"%0a%5c%22}',
          '/%22}%20x{le="1"}/..%2f',
        ]
      ) {
        await (await fetch(`${messages}${path}`)).body?.cancel();
      }
      const data = await fetch(`http://127.0.0.1:${ports.dataApi}/data`, {
        headers: { authorization: "Bearer t0ken" },
      });
      assert.equal(data.status, 200);
      await data.body?.cancel();
      await (await fetch(`http://127.0.0.1:${ports.table}/`)).body?.cancel();
      const table = await fetch(`http://127.0.0.1:${ports.table}/api/table`);
      assert.equal(table.status, 200);
      await table.body?.cancel();
      const proxied = `http://127.0.0.1:${ports.proxyHttp}`;
      for (const path of ["/up/a", "/up/a", '/"quoted"/x', "/%22q%22/x"]) {
        await (await fetch(`${proxied}${path}`)).body?.cancel();
      }
      const note = await fetch(
        `http://127.0.0.1:${ports.notifierHttp}/note/Door/Opened`,
      );
      assert.equal(note.status, 200);
      await note.body?.cancel();

      await t.step(
        "promtool check metrics accepts every /metrics",
        async () => {
          for (const port of targets) {
            const text = await (await fetch(`http://127.0.0.1:${port}/metrics`))
              .text();
            assert.equal(await promtoolProblems(text), undefined, text);
            assert.doesNotMatch(text, /quoted|%22|\.\.%2f/);
          }
        },
      );

      server = await startServerProcess({
        path: prometheus.path,
        prefix: "homewire-prometheus-",
        readyUrl: `http://127.0.0.1:${ports.prometheus}/-/ready`,
        async args(dir) {
          await Deno.writeTextFile(
            `${dir}/prometheus.yml`,
            JSON.stringify({
              global: { scrape_interval: "1s", evaluation_interval: "1s" },
              scrape_configs: [{
                job_name: "homewire",
                static_configs: [{
                  targets: targets.map((port) => `127.0.0.1:${port}`),
                }],
              }],
            }),
          );
          return [
            `--config.file=${dir}/prometheus.yml`,
            `--storage.tsdb.path=${dir}/data`,
            `--web.listen-address=127.0.0.1:${ports.prometheus}`,
          ];
        },
      });
      const base = `http://127.0.0.1:${ports.prometheus}`;

      await t.step("every target is up", async () => {
        await queryUntil(
          base,
          'up{job="homewire"}',
          (v) => v.length === 4 && v.every((s) => s.value === 1),
        );
      });

      await t.step(
        "the HTTP series by role, route pattern, method and status class",
        async () => {
          const count = async (selector: string, atLeast = 1) =>
            await queryUntil(
              base,
              `homewire_http_requests_total{${selector}}`,
              (v) => v.some((s) => s.value >= atLeast),
            );
          await count(
            'role="messages",route="/api/message/resource",method="POST",status_class="2xx"',
          );
          await count(
            'role="messages",route="/api/message/resource",method="GET",status_class="2xx"',
          );
          await count('role="data-api",route="/data",status_class="2xx"');
          await count('role="table",route="/",status_class="2xx"');
          await count('role="notifier",status_class="2xx"');
          await count('role="proxy",status_class="2xx"', 2);
          await queryUntil(
            base,
            'homewire_http_request_duration_seconds_count{role="messages"}',
            (v) => v.some((s) => s.value >= 1),
          );
          // No raw path became a label value.
          const routes = await queryUntil(
            base,
            "count by (route) (homewire_http_requests_total)",
            () => true,
          );
          for (const { metric } of routes) {
            assert.doesNotMatch(metric.route ?? "", /quoted|"|%|\.\./);
          }
        },
      );

      await t.step(
        "each role's series, readiness and the process series",
        async () => {
          await queryUntil(
            base,
            'homewire_proxy_upstream_requests_total{route="up"}',
            (v) => v.some((s) => s.value >= 1),
          );
          await queryUntil(
            base,
            "homewire_proxy_cache_hits_total",
            (v) => v.some((s) => s.value >= 1),
          );
          await queryUntil(
            base,
            'homewire_notifier_notes_total{scheme="ntfy",outcome="sent"}',
            (v) => v.some((s) => s.value === 1),
          );
          await queryUntil(
            base,
            'homewire_messages_store_operations_total{store="sqlite"}',
            (v) => v.some((s) => s.value >= 1),
          );
          await queryUntil(
            base,
            'homewire_table_source_fetches_total{outcome="ok"}',
            (v) => v.some((s) => s.value >= 1),
          );
          await queryUntil(
            base,
            'homewire_http_requests_total{role="table",route="/api/table"}',
            (v) => v.some((s) => s.value >= 1),
          );
          const ready = await queryUntil(
            base,
            "homewire_ready == 1",
            (v) => v.length === 7,
          );
          assert.deepEqual(
            ready.map((s) => s.metric.role).sort(),
            [
              "collector",
              "data-api",
              "forwarder",
              "messages",
              "notifier",
              "proxy",
              "table",
            ],
          );
          const memory = await queryUntil(
            base,
            "process_resident_memory_bytes",
            (v) => v.length === 4,
          );
          assert.ok(memory.every((s) => s.value > 10_000_000));
          await queryUntil(
            base,
            'homewire_build_info{version=~".+"}',
            (v) => v.length === 4,
          );
        },
      );

      await t.step("the collector's and the forwarder's series", async () => {
        await queryUntil(
          base,
          'homewire_sensor_pressure_pascals{role="collector",sensor="in"}',
          (v) => v.some((s) => Math.abs(s.value - 101325) < 0.01),
        );
        await queryUntil(
          base,
          'homewire_sensor_temperature_celsius{role="collector",sensor="out",location="out"}',
          (v) => v.length === 1,
        );
        await queryUntil(
          base,
          'homewire_collector_passes_total{outcome="collected"}',
          (v) => v.some((s) => s.value >= 1),
        );
        await queryUntil(
          base,
          "time() - homewire_collector_last_write_timestamp_seconds < 120",
          (v) => v.length === 1,
        );
        await queryUntil(
          base,
          'homewire_forwarder_messages_deleted_total{role="forwarder"}',
          (v) => v.some((s) => s.value === 2),
        );
        await queryUntil(
          base,
          "time() - homewire_forwarder_last_receive_timestamp_seconds < 60",
          (v) => v.length === 1,
        );
      });
    } finally {
      await server?.stop();
      for (const main of processes) {
        const code = await main.stop();
        assert.equal(code, 0, main.stderr.join("\n"));
      }
      await upstream.close();
      await weather.close();
      await fauxqs.stop();
      await Deno.remove(iio, { recursive: true });
    }
  },
});
