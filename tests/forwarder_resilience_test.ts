/**
 * The `forwarder` role through `main.ts` under faults: a frozen queue server, SIGTERM
 * and kill -9 in the middle of a batch, two competing processes.
 */
import assert from "node:assert/strict";
import { startSink } from "../services/forwarder/_test_sink.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { startMain } from "./_test_helpers.ts";

async function until(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const numbered = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

Deno.test("forwarder role under faults", async (t) => {
  const fauxqs = await startFauxqs();
  const emptied = (url: string) => () =>
    fauxqs.counts(url).then((c) => c.visible + c.inFlight === 0);
  const env = (url: string, endpoint: string, extra = {}) => ({
    ...fauxqs.env(url),
    HTTP_ENDPOINT: endpoint,
    AUTH_BEARER_TOKEN: "Bearer t",
    QUEUE_WAIT_TIME_SECONDS: "1",
    ...extra,
  });

  await t.step(
    "survives the queue server being frozen and resumed",
    async () => {
      const url = await fauxqs.createQueue("frozen", {
        VisibilityTimeout: "2",
      });
      const sink = startSink();
      const main = startMain(["forwarder"], { env: env(url, sink.url) });
      try {
        await fauxqs.send(url, ["before"]);
        await sink.waitFor(1);
        await until(emptied(url));
        fauxqs.pause();
        await main.waitFor(
          /\[ERROR\] Cannot receive from the queue: .*; retrying in \d+ ms$/,
        );
        fauxqs.resume();
        await fauxqs.send(url, ["after"]);
        await sink.waitFor(2, 20_000);
        await until(emptied(url));
        assert.deepEqual(sink.bodies(), ['"before"', '"after"']);
      } finally {
        fauxqs.resume();
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
    },
  );

  await t.step(
    "SIGTERM mid-batch finishes the batch, deletes it and exits 0",
    async () => {
      const url = await fauxqs.createQueue("sigterm");
      const sink = startSink({ delayMs: 800 });
      await fauxqs.send(url, numbered(15, "term"));
      const main = startMain(["forwarder"], { env: env(url, sink.url) });
      await sink.waitFor(1);
      assert.equal(await main.stop("SIGTERM"), 0);
      assert.equal(sink.requests.length, 10);
      assert.deepEqual(await fauxqs.counts(url), { visible: 5, inFlight: 0 });
      await sink.stop();
    },
  );

  await t.step(
    "SIGTERM waits up to 25 s for the batch, whatever HTTP_TIMEOUT_MS",
    async () => {
      // Posted one at a time, 6 × 700 ms: the batch outlasts HTTP_TIMEOUT_MS + 1 s
      // (2.5 s, the bound once) but each post ends well within HTTP_TIMEOUT_MS.
      const url = await fauxqs.createQueue("patient-stop");
      const sink = startSink({ delayMs: 700 });
      await fauxqs.send(url, numbered(6, "calm"));
      const main = startMain(["forwarder"], {
        env: env(url, sink.url, {
          HTTP_TIMEOUT_MS: "1500",
          FORWARD_CONCURRENCY: "1",
        }),
      });
      try {
        await sink.waitFor(1);
        assert.equal(await main.stop("SIGTERM"), 0);
        assert.equal(sink.requests.length, 6);
        assert.deepEqual(await fauxqs.counts(url), { visible: 0, inFlight: 0 });
        assert.ok(
          !main.stderr.some((line) => /abandon|not posted/.test(line)),
          main.stderr.join("\n"),
        );
      } finally {
        await sink.stop();
      }
    },
  );

  await t.step(
    "a queue whose visibility timeout is 0 has each message posted once",
    async () => {
      const url = await fauxqs.createQueue("no-visibility", {
        VisibilityTimeout: "0",
      });
      const sink = startSink({ delayMs: 1000 });
      await fauxqs.send(url, ["once"]);
      const main = startMain(["forwarder"], { env: env(url, sink.url) });
      try {
        await main.waitFor(
          /\[WARNING\] The queue's visibility timeout is 0 s: .*set QUEUE_VISIBILITY_TIMEOUT/,
        );
        await sink.waitFor(1);
        await until(emptied(url));
        // Long enough for a message visible again at once to be posted again.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        assert.deepEqual(sink.bodies(), ['"once"']);
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
    },
  );

  await t.step("kill -9 mid-batch then a restart loses nothing", async () => {
    const url = await fauxqs.createQueue("killed");
    const sink = startSink({ delayMs: 300 });
    const bodies = numbered(40, "kill");
    await fauxqs.send(url, bodies);
    const settings = env(url, sink.url, { QUEUE_VISIBILITY_TIMEOUT: "2" });
    const first = startMain(["forwarder"], { env: settings });
    await sink.waitFor(15);
    assert.equal(await first.stop("SIGKILL"), 137);
    const left = await fauxqs.counts(url);
    assert.ok(left.inFlight > 0, "the kill must land in the middle of a batch");
    const second = startMain(["forwarder"], { env: settings });
    try {
      await until(emptied(url), 30_000);
      const delivered = new Set(sink.bodies());
      assert.ok(sink.requests.length >= bodies.length);
      assert.deepEqual(
        [...delivered].sort(),
        bodies.map((b) => JSON.stringify(b)).sort(),
      );
    } finally {
      assert.equal(await second.stop("SIGTERM"), 0);
      await sink.stop();
    }
  });

  await t.step(
    "two processes on one queue post every message once",
    async () => {
      const url = await fauxqs.createQueue("shared");
      const sink = startSink({ delayMs: 5 });
      const bodies = numbered(300, "shared");
      const settings = env(url, sink.url);
      const a = startMain(["forwarder"], { env: settings });
      const b = startMain(["forwarder"], { env: settings });
      try {
        await Promise.all([
          a.waitFor(/sqs2http start/),
          b.waitFor(/sqs2http start/),
        ]);
        await fauxqs.send(url, bodies);
        await until(emptied(url));
        assert.equal(sink.requests.length, bodies.length);
        assert.deepEqual(
          sink.bodies().sort(),
          bodies.map((x) => JSON.stringify(x)).sort(),
        );
        const postedBy = (lines: string[]) =>
          lines.filter((l) => /\[INFO\] shared-/.test(l)).length;
        assert.equal(postedBy(a.stderr) + postedBy(b.stderr), bodies.length);
      } finally {
        assert.equal(await a.stop("SIGTERM"), 0);
        assert.equal(await b.stop("SIGTERM"), 0);
        await sink.stop();
      }
    },
  );

  await fauxqs.stop();
});
