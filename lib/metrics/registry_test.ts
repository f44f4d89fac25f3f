import assert from "node:assert/strict";
import { createRegistry } from "./registry.ts";

Deno.test("createRegistry()", async (t) => {
  await t.step("render() writes counters, gauges and labels", async () => {
    const registry = createRegistry();
    const jobs = registry.counter({
      name: "jobs_total",
      help: "Jobs done",
      labels: ["kind"],
    });
    jobs.inc({ kind: "a" });
    jobs.inc({ kind: "a" }, 2);
    jobs.child({ kind: "b" }).inc();
    registry.gauge({ name: "queue_length", help: "Queued" }).set({}, 7);
    assert.equal(
      await registry.render(),
      [
        "# HELP jobs_total Jobs done",
        "# TYPE jobs_total counter",
        'jobs_total{kind="a"} 3',
        'jobs_total{kind="b"} 1',
        "# HELP queue_length Queued",
        "# TYPE queue_length gauge",
        "queue_length 7",
        "",
      ].join("\n"),
    );
  });

  await t.step("with() adds its labels first, shared families", async () => {
    const registry = createRegistry();
    for (const role of ["messages", "proxy"]) {
      registry.with({ role }).counter({
        name: "requests_total",
        help: "Requests",
        labels: ["route"],
      }).inc({ route: "/x" });
    }
    const text = await registry.render();
    assert.match(text, /^requests_total\{role="messages",route="\/x"\} 1$/m);
    assert.match(text, /^requests_total\{role="proxy",route="\/x"\} 1$/m);
    assert.equal(text.match(/# TYPE/g)?.length, 1);
  });

  await t.step(
    "histogram() writes cumulative buckets, sum and count",
    async () => {
      const registry = createRegistry();
      const h = registry.histogram({
        name: "wait_seconds",
        help: "Waits",
        buckets: [0.1, 1],
      });
      h.observe({}, 0.05);
      h.observe({}, 0.5);
      h.child({}).observe(3);
      const text = await registry.render();
      assert.match(text, /^wait_seconds_bucket\{le="0.1"\} 1$/m);
      assert.match(text, /^wait_seconds_bucket\{le="1.0"\} 2$/m);
      assert.match(text, /^wait_seconds_bucket\{le="\+Inf"\} 3$/m);
      assert.match(text, /^wait_seconds_sum 3.55$/m);
      assert.match(text, /^wait_seconds_count 3$/m);
    },
  );

  await t.step("hostile label values are escaped", async () => {
    const registry = createRegistry();
    registry.counter({ name: "x_total", help: 'a "b"\\ \nc', labels: ["v"] })
      .inc({ v: 'a"b\\c\nd' });
    const text = await registry.render();
    assert.match(text, /^# HELP x_total a "b"\\\\ \\nc$/m);
    assert.ok(text.includes('x_total{v="a\\"b\\\\c\\nd"} 1\n'));
    assert.equal(text.split("\n").length, 4);
  });

  await t.step(
    "OpenMetrics names counters and infos without suffix",
    async () => {
      const registry = createRegistry();
      registry.counter({ name: "jobs_total", help: 'Say "hi"' }).inc({});
      registry.info({ name: "app_build_info", help: "Build" }, {
        version: "1.2",
      });
      assert.equal(
        await registry.render("openmetrics"),
        [
          '# HELP jobs Say \\"hi\\"',
          "# TYPE jobs counter",
          "jobs_total 1",
          "# HELP app_build Build",
          "# TYPE app_build info",
          'app_build_info{version="1.2"} 1',
          "# EOF",
          "",
        ].join("\n"),
      );
      assert.match(
        await registry.render("text"),
        /^# TYPE app_build_info gauge$/m,
      );
    },
  );

  await t.step("beforeScrape() hooks run before each render", async () => {
    const registry = createRegistry();
    const gauge = registry.gauge({ name: "now", help: "Now" });
    let n = 0;
    registry.beforeScrape(() => gauge.set({}, ++n));
    registry.beforeScrape(() => {
      throw new Error("broken");
    });
    await registry.render();
    assert.match(await registry.render(), /^now 2$/m);
  });

  await t.step("bad names and clashes are refused", () => {
    const registry = createRegistry();
    assert.throws(() => registry.counter({ name: "jobs", help: "" }), /_total/);
    assert.throws(() => registry.gauge({ name: "a-b", help: "" }), /name/);
    assert.throws(
      () => registry.gauge({ name: "g", help: "", labels: ["__x"] }),
      /label name/,
    );
    registry.gauge({ name: "g", help: "" });
    assert.throws(
      () => registry.counter({ name: "g", help: "" }),
      /_total/,
    );
    assert.throws(
      () => registry.gauge({ name: "g", help: "", labels: ["a"] }),
      /already registered/,
    );
  });
});
