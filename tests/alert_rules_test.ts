/**
 * `deploy/homewire.rules.yml` checked by Debian's `promtool` (`check rules`, then
 * `test rules` on series that fire each alert and series that must not), and loaded
 * by `vmalert -dryRun` when VictoriaMetrics' vmalert is there. The scrape
 * configuration and the Alertmanager receiver shown in `docs/running.md` pass
 * `promtool check config` and `amtool check-config`.
 */
import assert from "node:assert/strict";
import { requireBinary } from "./_test_helpers.ts";

const RULES = new URL("../deploy/homewire.rules.yml", import.meta.url)
  .pathname;
const promtool = requireBinary("promtool");

async function run(path: string, args: string[]) {
  const output = await new Deno.Command(path, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) +
    new TextDecoder().decode(output.stderr);
  return { code: output.code, text };
}

/** A `promtool test rules` file: series given as `name{labels}` and their values. */
function unitTests(): string {
  const i = 'job="homewire",instance="pi:9464"';
  return JSON.stringify({
    rule_files: [RULES],
    evaluation_interval: "1m",
    tests: [
      {
        // A collector that wrote at t=0 and never again, with a sensor heard at 0.
        interval: "1m",
        input_series: [
          {
            series:
              `homewire_collector_last_write_timestamp_seconds{${i},role="collector"}`,
            values: "0x120",
          },
          {
            series:
              `homewire_sensor_last_read_timestamp_seconds{${i},role="collector",sensor="attic"}`,
            values: "0x120",
          },
          {
            series:
              `homewire_sensor_last_read_timestamp_seconds{${i},role="collector",sensor="garden"}`,
            values: "0+60x120",
          },
        ],
        alert_rule_test: [
          {
            eval_time: "10m",
            alertname: "HomewireCollectorStale",
            exp_alerts: [],
          },
          {
            eval_time: "20m",
            alertname: "HomewireCollectorStale",
            exp_alerts: [{
              exp_labels: {
                severity: "critical",
                job: "homewire",
                instance: "pi:9464",
                role: "collector",
              },
              exp_annotations: {
                summary:
                  "The collector on pi:9464 has written nothing for 15 minutes",
                description:
                  "Last successful write 20m 0s ago: check the time-series store and the collector's log.",
              },
            }],
          },
          {
            eval_time: "50m",
            alertname: "HomewireSensorSilent",
            exp_alerts: [],
          },
          {
            eval_time: "70m",
            alertname: "HomewireSensorSilent",
            exp_alerts: [{
              exp_labels: {
                severity: "warning",
                job: "homewire",
                instance: "pi:9464",
                role: "collector",
                sensor: "attic",
              },
              exp_annotations: {
                summary: "Sensor attic has not been heard for an hour",
                description:
                  "Last reading 1h 10m 0s ago on pi:9464: check its battery and range.",
              },
            }],
          },
        ],
      },
      {
        interval: "1m",
        input_series: [
          {
            series: `homewire_collector_points_buffered{${i},role="collector"}`,
            values: "0+10x120",
          },
          {
            series: `homewire_ready{${i},role="messages"}`,
            values: "1x5 0x20",
          },
          { series: `homewire_ready{${i},role="proxy"}`, values: "1x30" },
          {
            series:
              `homewire_forwarder_post_failures_total{${i},role="forwarder"}`,
            values: "0+5x60",
          },
          {
            series:
              `homewire_forwarder_post_retries_total{${i},role="forwarder"}`,
            values: "0x60",
          },
          {
            series:
              `homewire_forwarder_last_receive_timestamp_seconds{${i},role="forwarder"}`,
            values: "0x60",
          },
          {
            series:
              `homewire_proxy_upstream_requests_total{${i},role="proxy",route="weather",outcome="5xx"}`,
            values: "0+3x60",
          },
          {
            series:
              `homewire_proxy_upstream_requests_total{${i},role="proxy",route="weather",outcome="2xx"}`,
            values: "0+7x60",
          },
          {
            series:
              `homewire_proxy_upstream_requests_total{${i},role="proxy",route="maps",outcome="2xx"}`,
            values: "0+7x60",
          },
          {
            series:
              `homewire_http_requests_total{${i},role="messages",route="/api/message/resource",method="GET",status_class="2xx"}`,
            values: "0+100x60",
          },
          {
            series:
              `homewire_http_requests_total{${i},role="messages",route="/api/message/resource",method="GET",status_class="5xx"}`,
            values: "0+1x60",
          },
        ],
        alert_rule_test: [
          {
            eval_time: "60m",
            alertname: "HomewireCollectorBufferGrowing",
            exp_alerts: [{
              exp_labels: {
                severity: "warning",
                job: "homewire",
                instance: "pi:9464",
                role: "collector",
              },
              exp_annotations: {
                summary:
                  "The collector on pi:9464 buffers more and more points",
                description:
                  "600 points wait for the time-series store, growing for 30 minutes: the store refuses or cannot be reached.",
              },
            }],
          },
          {
            eval_time: "12m",
            alertname: "HomewireRoleNotReady",
            exp_alerts: [{
              exp_labels: {
                severity: "critical",
                job: "homewire",
                instance: "pi:9464",
                role: "messages",
              },
              exp_annotations: {
                summary: "messages on pi:9464 is not ready",
                description:
                  "GET /readyz has returned 503 for 5 minutes: see its message and the role's log.",
              },
            }],
          },
          {
            eval_time: "30m",
            alertname: "HomewireForwarderFailing",
            exp_alerts: [{
              exp_labels: {
                severity: "warning",
                job: "homewire",
                instance: "pi:9464",
                role: "forwarder",
              },
              exp_annotations: {
                summary: "The forwarder on pi:9464 cannot deliver messages",
                description:
                  "83.33m failed or retried posts a second for 15 minutes: the endpoint is down or refuses them; messages stay in the queue.",
              },
            }],
          },
          {
            eval_time: "9m",
            alertname: "HomewireForwarderNotReceiving",
            exp_alerts: [],
          },
          {
            eval_time: "30m",
            alertname: "HomewireProxyUpstreamErrors",
            exp_alerts: [{
              exp_labels: {
                severity: "warning",
                job: "homewire",
                instance: "pi:9464",
                route: "weather",
              },
              exp_annotations: {
                summary: "Proxy route weather fails upstream",
                description:
                  "30% of its upstream requests failed or returned 5xx over 10 minutes.",
              },
            }],
          },
          { eval_time: "30m", alertname: "HomewireHttpErrors", exp_alerts: [] },
        ],
      },
    ],
  });
}

Deno.test({
  name: "deploy/homewire.rules.yml passes promtool check rules and test rules",
  ignore: promtool.ignore,
  async fn() {
    assert.ok(promtool.path, "promtool is not installed (CI=true)");
    const checked = await run(promtool.path, ["check", "rules", RULES]);
    assert.equal(checked.code, 0, checked.text);
    assert.match(checked.text, /SUCCESS: 8 rules found/);
    const dir = await Deno.makeTempDir({ prefix: "homewire-rules-" });
    try {
      // YAML is a superset of JSON: the test file is written as JSON.
      await Deno.writeTextFile(`${dir}/tests.yml`, unitTests());
      const tested = await run(promtool.path, [
        "test",
        "rules",
        `${dir}/tests.yml`,
      ]);
      assert.equal(tested.code, 0, tested.text);
      assert.match(tested.text, /SUCCESS/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const vmalert = requireBinary("vmalert", ["/usr/bin/vmalert"]);

Deno.test({
  name: "deploy/homewire.rules.yml loads in vmalert -dryRun",
  ignore: vmalert.ignore,
  async fn() {
    assert.ok(vmalert.path, "vmalert is not installed (CI=true)");
    const checked = await run(vmalert.path, [`-rule=${RULES}`, "-dryRun"]);
    assert.equal(checked.code, 0, checked.text);
  },
});

/** The YAML blocks of `docs/running.md`'s "Watching homewire", in order. */
async function watchingYaml(): Promise<string[]> {
  const page = await Deno.readTextFile(
    new URL("../docs/running.md", import.meta.url),
  );
  const section = page.slice(page.indexOf("## Watching homewire"));
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

Deno.test({
  name:
    "the scrape configuration of docs/running.md passes promtool check config",
  ignore: promtool.ignore,
  async fn() {
    assert.ok(promtool.path, "promtool is not installed (CI=true)");
    const [scrape] = await watchingYaml();
    assert.match(scrape ?? "", /scrape_configs:/);
    const dir = await Deno.makeTempDir({ prefix: "homewire-scrape-" });
    try {
      const config = scrape!.replace(
        "/etc/prometheus/homewire.rules.yml",
        RULES,
      );
      await Deno.writeTextFile(`${dir}/prometheus.yml`, config);
      const checked = await run(promtool.path, [
        "check",
        "config",
        `${dir}/prometheus.yml`,
      ]);
      assert.equal(checked.code, 0, checked.text);
      assert.match(checked.text, /SUCCESS: 8 rules found/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const amtool = requireBinary("amtool");

Deno.test({
  name:
    "the Alertmanager receiver of docs/running.md passes amtool check-config",
  ignore: amtool.ignore,
  async fn() {
    assert.ok(amtool.path, "amtool is not installed (CI=true)");
    const receiver = (await watchingYaml())[1];
    assert.match(receiver ?? "", /\/notify\/alertmanager/);
    const dir = await Deno.makeTempDir({ prefix: "homewire-am-" });
    try {
      await Deno.writeTextFile(
        `${dir}/alertmanager.yml`,
        receiver!.replace("<NOTIFIER_TOKEN>", "s3cret"),
      );
      const checked = await run(amtool.path, [
        "check-config",
        `${dir}/alertmanager.yml`,
      ]);
      assert.equal(checked.code, 0, checked.text);
      assert.match(checked.text, /SUCCESS/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
