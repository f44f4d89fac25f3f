/**
 * The `forwarder` role started through `main.ts`, against a real fauxqs server and a
 * real HTTP endpoint: wire format, deletion rules, endpoint faults, options, settings.
 */
import assert from "node:assert/strict";
import { SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { startSink } from "../services/forwarder/_test_sink.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { freePort, startMain } from "./_test_helpers.ts";

const TOKEN = "Bearer s3cr3t-token";
const LINE =
  /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[(DEBUG|INFO|WARNING|ERROR)\] /;

async function until(check: () => Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("forwarder role through main.ts", async (t) => {
  const fauxqs = await startFauxqs();
  const emptied = (url: string) => () =>
    fauxqs.counts(url).then((c) => c.visible + c.inFlight === 0);
  const base = (url: string, endpoint: string) => ({
    ...fauxqs.env(url),
    HTTP_ENDPOINT: endpoint,
    AUTH_BEARER_TOKEN: TOKEN,
    QUEUE_WAIT_TIME_SECONDS: "1",
  });
  /** `base` with a named profile, read from `home`, in place of the two keys. */
  const withProfile = (
    settings: Record<string, string>,
    profile: string,
    home: string,
  ) => {
    const env: Record<string, string> = {
      ...settings,
      QUEUE_PROFILE: profile,
      AWS_SHARED_CREDENTIALS_FILE: `${home}/credentials`,
      AWS_CONFIG_FILE: `${home}/config`,
    };
    delete env.QUEUE_ACCESS_KEY_ID;
    delete env.QUEUE_SECRET_ACCESS_KEY;
    return env;
  };

  await t.step(
    "posts JSON, plain and unicode bodies exactly and deletes after any status",
    async () => {
      const url = await fauxqs.createQueue("wire");
      const sink = startSink({
        status: (r) =>
          r.body.includes("400") ? 400 : r.body.includes("500") ? 500 : 201,
      });
      const bodies = [
        '{"temperature": 21.5, "ok": true}',
        "plain text with a 400",
        "unicode: héllo ✓ 日本語 € and a 500",
        'quotes " and \\ backslash\nnew line',
      ];
      await fauxqs.send(url, bodies);
      const metricsPort = freePort();
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARDER_METRICS_PORT: String(metricsPort),
        },
      });
      try {
        const start = await main.waitFor(/sqs2http start/);
        assert.match(
          start,
          /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[INFO\] sqs2http start$/,
        );
        await sink.waitFor(bodies.length);
        await until(emptied(url));
        assert.deepEqual(
          sink.bodies().sort(),
          bodies.map((body) => JSON.stringify(body)).sort(),
        );
        for (const request of sink.requests) {
          assert.equal(request.method, "POST");
          assert.equal(request.headers.get("authorization"), TOKEN);
          assert.equal(request.headers.get("content-type"), "application/json");
          assert.equal(
            JSON.parse(request.body),
            bodies.find((b) => JSON.stringify(b) === request.body),
          );
        }
        for (const body of bodies.filter((b) => !b.includes("\n"))) {
          await main.waitFor(new RegExp(`\\[INFO\\] ${RegExp.escape(body)}$`));
        }
        const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        const text = await metrics.text();
        // FORWARDER_METRICS_PORT, the older name, still serves the endpoint.
        assert.match(
          text,
          /^homewire_forwarder_messages_deleted_total\{role="forwarder"\} 4$/m,
        );
        assert.match(
          text,
          /^homewire_forwarder_messages_posted_total\{role="forwarder"\} 4$/m,
        );
        const health = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
        assert.deepEqual(await health.json(), { status: "ok" });
        const ready = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
        assert.deepEqual(await ready.json(), { status: "ready" });
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      const output = main.stderr.join("\n");
      assert.ok(!output.includes("s3cr3t"), "the token must not be logged");
      for (const line of main.stderr.filter((l) => l.trim() !== "")) {
        if (!line.startsWith("new line")) assert.match(line, LINE);
      }
    },
  );

  await t.step(
    "leaves the message queued while the endpoint refuses or hangs, then delivers it",
    async () => {
      const url = await fauxqs.createQueue("faults");
      const port = freePort();
      await fauxqs.send(url, ["patience"]);
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, `http://127.0.0.1:${port}/hook`),
          QUEUE_VISIBILITY_TIMEOUT: "1",
          HTTP_TIMEOUT_MS: "400",
        },
      });
      try {
        await main.waitFor(
          /\[ERROR\] Cannot post message .*; left in the queue$/,
        );
        assert.equal(
          (await fauxqs.counts(url)).visible +
            (await fauxqs.counts(url)).inFlight,
          1,
        );
        const hanging = startSink({ port, delayMs: 5000 });
        await main.waitFor(
          /\[ERROR\] Cannot post message .*No reply within 400 ms/,
        );
        assert.equal(
          (await fauxqs.counts(url)).visible +
            (await fauxqs.counts(url)).inFlight,
          1,
        );
        await hanging.stop();
        const back = startSink({ port });
        await until(emptied(url));
        assert.deepEqual(back.bodies().at(-1), '"patience"');
        await back.stop();
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
      }
    },
  );

  await t.step(
    "retries the configured statuses, posts raw bodies, reads a profile",
    async () => {
      const url = await fauxqs.createQueue("retry", { VisibilityTimeout: "1" });
      let calls = 0;
      const sink = startSink({ status: () => ++calls === 1 ? 503 : 404 });
      await fauxqs.send(url, ['{"raw":true}']);
      const home = await Deno.makeTempDir();
      await Deno.writeTextFile(
        `${home}/credentials`,
        "[homewire]\naws_access_key_id = test\naws_secret_access_key = test\n",
      );
      const env = withProfile(
        {
          ...base(url, sink.url),
          FORWARD_RETRY_STATUSES: "429,500-599",
          FORWARD_BODY: "raw",
        },
        "homewire",
        home,
      );
      // The SDK's file variables from an env file, as deploy/ has them, not the
      // process environment.
      const file = `${home}/forwarder.env`;
      await Deno.writeTextFile(
        file,
        `AWS_SHARED_CREDENTIALS_FILE=${env.AWS_SHARED_CREDENTIALS_FILE}\nAWS_CONFIG_FILE=${env.AWS_CONFIG_FILE}\n`,
      );
      delete env.AWS_SHARED_CREDENTIALS_FILE;
      delete env.AWS_CONFIG_FILE;
      const main = startMain(["forwarder", "--env-file", file], { env });
      try {
        await main.waitFor(
          /\[WARNING\] Endpoint returned 503 for message .*left in the queue/,
        );
        await sink.waitFor(2);
        await until(emptied(url));
        assert.deepEqual(sink.bodies(), ['{"raw":true}', '{"raw":true}']);
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
        await Deno.remove(home, { recursive: true });
      }
    },
  );

  await t.step(
    "warns once per message deleted after a 401 or a redirect",
    async () => {
      const url = await fauxqs.createQueue("refusing");
      const sink = startSink({
        reply: (r) =>
          r.body.includes("moved")
            ? new Response(null, {
              status: 301,
              headers: { location: "https://new.example.com/in" },
            })
            : new Response("no", { status: 401 }),
      });
      await fauxqs.send(url, ["denied", "moved"]);
      const main = startMain(["forwarder"], { env: base(url, sink.url) });
      try {
        await sink.waitFor(2);
        await until(emptied(url));
        await main.waitFor(
          /\[WARNING\] Endpoint returned 401 Unauthorized for message \S+: deleted \(any status deletes the message; list 401 in FORWARD_RETRY_STATUSES to keep such messages\)$/,
        );
        await main.waitFor(
          /\[WARNING\] Endpoint returned 301 Moved Permanently \(Location "https:\/\/new\.example\.com\/in"\) for message \S+: deleted, the redirect not followed/,
        );
        assert.equal(sink.requests.length, 2, "the redirect is not followed");
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      assert.equal(
        main.stderr.filter((line) => /Endpoint returned/.test(line)).length,
        2,
      );
    },
  );

  await t.step(
    "forwards a batch of large multibyte bodies intact",
    async () => {
      // About 21 KB each: the receive reply (about 240 KB) is larger than one read of
      // the pooled client, and each post larger than its head buffer.
      const url = await fauxqs.createQueue("large");
      const sink = startSink();
      const bodies = Array.from(
        { length: 10 },
        (_, i) => `${i}:${"αβγ-".repeat(3000)}`,
      );
      await fauxqs.send(url, bodies);
      const main = startMain(["forwarder"], {
        env: { ...base(url, sink.url), LOG_LEVEL: "WARNING" },
      });
      try {
        await sink.waitFor(bodies.length);
        await until(emptied(url));
        assert.deepEqual(
          sink.bodies().map((body) => JSON.parse(body)).sort(),
          [...bodies].sort(),
        );
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
    },
  );

  await t.step(
    "keeps the order within each message group of a FIFO queue",
    async () => {
      const url = await fauxqs.createQueue("order.fifo", {
        FifoQueue: "true",
      });
      // The endpoint responds in random order.
      const sink = startSink({ delayMs: () => Math.random() * 20 });
      const groups = ["g0", "g1", "g2", "g3"];
      const bodies = Array.from(
        { length: 8 },
        (_, i) => groups.map((group) => `${group}:${i}`),
      ).flat();
      for (let i = 0; i < bodies.length; i += 10) {
        await fauxqs.client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: bodies.slice(i, i + 10).map((body, j) => ({
              Id: String(j),
              MessageBody: body,
              MessageGroupId: body.split(":")[0],
              MessageDeduplicationId: body.replace(":", "-"),
            })),
          }),
        );
      }
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARDER_RECEIVERS: "2",
          LOG_LEVEL: "WARNING",
        },
      });
      try {
        await sink.waitFor(bodies.length);
        await until(emptied(url));
        const posted = sink.bodies().map((body) => JSON.parse(body) as string);
        assert.equal(posted.length, bodies.length);
        for (const group of groups) {
          const inGroup = (b: string) => b.startsWith(`${group}:`);
          assert.deepEqual(posted.filter(inGroup), bodies.filter(inGroup));
        }
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
    },
  );

  await t.step("exits 2 naming each missing or malformed setting", async () => {
    const missing = startMain(["forwarder"]);
    assert.equal(await missing.exited(), 2);
    const text = missing.stderr.join("\n");
    for (
      const name of [
        "QUEUE_URL",
        "QUEUE_REGION",
        "HTTP_ENDPOINT",
        "AUTH_BEARER_TOKEN",
        "QUEUE_ACCESS_KEY_ID",
        "QUEUE_SECRET_ACCESS_KEY",
      ]
    ) {
      assert.match(text, new RegExp(`Missing ${name}`));
    }
    const malformed = startMain(["forwarder"], {
      env: {
        QUEUE_URL: "not a url",
        QUEUE_REGION: "bad region!",
        QUEUE_ACCESS_KEY_ID: "only-one",
        // A malformed URL with a password is not quoted.
        HTTP_ENDPOINT: "http://hook:hunter2@127.0.0.1:99999/",
        AUTH_BEARER_TOKEN: "Bearer x",
        QUEUE_MAX_NUMBER_OF_MESSAGES: "11",
        QUEUE_WAIT_TIME_SECONDS: "abc",
        FORWARD_RETRY_STATUSES: "5xx",
        FORWARD_BODY: "xml",
      },
    });
    assert.equal(await malformed.exited(), 2);
    const lines = malformed.stderr.join("\n");
    assert.match(lines, /Invalid QUEUE_URL "not a url"/);
    assert.match(
      lines,
      /Invalid HTTP_ENDPOINT \(not quoted: it may hold a password\)/,
    );
    assert.doesNotMatch(lines, /hunter2/);
    assert.match(
      lines,
      /Invalid QUEUE_MAX_NUMBER_OF_MESSAGES "11": expected an integer from 1 to 10/,
    );
    assert.match(lines, /Invalid QUEUE_WAIT_TIME_SECONDS "abc"/);
    assert.match(lines, /Invalid FORWARD_RETRY_STATUSES "5xx"/);
    assert.match(
      lines,
      /Invalid FORWARD_BODY "xml": expected one of json, raw/,
    );
    assert.match(lines, /Missing QUEUE_SECRET_ACCESS_KEY/);
    assert.match(
      lines,
      /Invalid QUEUE_REGION "bad region!": expected a region/,
    );
  });

  await t.step(
    "exits 2 when an AWS queue URL names another region than QUEUE_REGION",
    async () => {
      const main = startMain(["forwarder"], {
        env: {
          QUEUE_URL: "https://eu-west-1.queue.amazonaws.com/123456789012/q",
          QUEUE_REGION: "us-east-1",
          QUEUE_ACCESS_KEY_ID: "a",
          QUEUE_SECRET_ACCESS_KEY: "b",
          HTTP_ENDPOINT: "http://127.0.0.1:1/",
          AUTH_BEARER_TOKEN: "Bearer x",
        },
      });
      assert.equal(await main.exited(), 2);
      assert.match(
        main.stderr.join("\n"),
        /QUEUE_REGION "us-east-1" does not match QUEUE_URL "https:\/\/eu-west-1\.queue\.amazonaws\.com\/123456789012\/q", whose host names region eu-west-1: set QUEUE_REGION=eu-west-1/,
      );
    },
  );

  await t.step(
    "exits 1 naming a profile that gives no credentials",
    async () => {
      const home = await Deno.makeTempDir();
      const env = withProfile(
        base(await fauxqs.createQueue("profile"), "http://127.0.0.1:1/"),
        "nosuch",
        home,
      );
      const main = startMain(["forwarder"], { env });
      try {
        assert.equal(await main.exited(), 1);
        assert.match(
          main.stderr.join("\n"),
          /\[ERROR\] Cannot start forwarder: No credentials for QUEUE_PROFILE "nosuch": .*add the profile/,
        );
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    },
  );

  await fauxqs.stop();
});
