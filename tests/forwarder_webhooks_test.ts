/**
 * The `forwarder` role's webhook options through `main.ts`, against a real fauxqs
 * server and real endpoints: Standard Webhooks signatures checked with the reference
 * implementation, the Beanstalk worker daemon's headers, the backoff of a message left
 * for redelivery, and the request unchanged without any of them.
 */
import assert from "node:assert/strict";
import {
  SendMessageBatchCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { Webhook } from "standardwebhooks";
import {
  type SinkRequest,
  startSink,
} from "../services/forwarder/_test_sink.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { freePort, startMain } from "./_test_helpers.ts";

const TOKEN = "Bearer s3cr3t-token";
/** A 24-byte Standard Webhooks secret. */
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function until(check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The request's headers as the reference implementation takes them. */
const headersOf = (request: SinkRequest) =>
  Object.fromEntries(request.headers) as Record<string, string>;

Deno.test("forwarder webhook options through main.ts", async (t) => {
  const fauxqs = await startFauxqs();
  const emptied = (url: string) => () =>
    fauxqs.counts(url).then((c) => c.visible + c.inFlight === 0);
  const base = (url: string, endpoint: string) => ({
    ...fauxqs.env(url),
    HTTP_ENDPOINT: endpoint,
    AUTH_BEARER_TOKEN: TOKEN,
    QUEUE_WAIT_TIME_SECONDS: "1",
  });

  await t.step(
    "signs every post as Standard Webhooks verify it, redeliveries too",
    async () => {
      const url = await fauxqs.createQueue("signed", {
        VisibilityTimeout: "2",
      });
      let redo = 0;
      const sink = startSink({
        status: (r) => r.body.includes("redo") && ++redo === 1 ? 503 : 200,
      });
      const bodies = [
        '{"temperature": 21.5}',
        "unicode: héllo ✓ 日本語",
        "redo",
      ];
      await fauxqs.send(url, bodies);
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARD_SIGNING_SECRET: SECRET,
          FORWARD_RETRY_STATUSES: "503",
        },
      });
      try {
        await sink.waitFor(4);
        await until(emptied(url));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      const webhook = new Webhook(SECRET);
      assert.equal(sink.requests.length, 4);
      for (const request of sink.requests) {
        webhook.verify(request.body, headersOf(request), { jsonParse: false });
        assert.equal(request.headers.get("authorization"), TOKEN);
      }
      const ids = sink.requests.map((r) => r.headers.get("webhook-id"));
      assert.equal(new Set(ids).size, 3, "one id per message");
      const [first, again] = sink.requests.filter((r) => r.body === '"redo"');
      assert.equal(
        first!.headers.get("webhook-id"),
        again!.headers.get("webhook-id"),
      );
      assert.ok(
        Number(again!.headers.get("webhook-timestamp")) >
          Number(first!.headers.get("webhook-timestamp")),
        "a redelivery is signed anew",
      );
      assert.notEqual(
        first!.headers.get("webhook-signature"),
        again!.headers.get("webhook-signature"),
      );
      // A tampered body, or the body before its JSON encoding, fails.
      const signed = sink.requests[0]!;
      assert.throws(
        () =>
          webhook.verify(signed.body + " ", headersOf(signed), {
            jsonParse: false,
          }),
        /No matching signature/,
      );
      assert.throws(
        () =>
          webhook.verify(JSON.parse(signed.body), headersOf(signed), {
            jsonParse: false,
          }),
        /No matching signature/,
      );
      assert.ok(!main.stderr.join("\n").includes(SECRET.slice(6)));
    },
  );

  await t.step(
    "signs raw non-ASCII bodies with a secret read from a file",
    async () => {
      const url = await fauxqs.createQueue("signed-raw");
      const sink = startSink();
      const dir = await Deno.makeTempDir();
      const file = `${dir}/signing_secret`;
      await Deno.writeTextFile(file, `${SECRET}\n`);
      const bodies = [
        "Grüße aus Köln ✓ 日本語 €",
        '{"città":"Zürich"}',
        // The body is logged: the file's secret is masked there as the
        // variable's would be.
        `Grüße, the secret is ${SECRET}`,
      ];
      await fauxqs.send(url, bodies);
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARD_BODY: "raw",
          FORWARD_SIGNING_SECRET_FILE: file,
        },
      });
      try {
        await sink.waitFor(3);
        await until(emptied(url));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
        await Deno.remove(dir, { recursive: true });
      }
      assert.deepEqual(sink.bodies().toSorted(), bodies.toSorted());
      const output = [...main.stdout, ...main.stderr].join("\n");
      assert.ok(!output.includes(SECRET), output);
      assert.match(output, /\[INFO\] Grüße, the secret is \*\*\*\*$/m);
      const webhook = new Webhook(SECRET);
      for (const request of sink.requests) {
        webhook.verify(request.body, headersOf(request), { jsonParse: false });
        assert.throws(
          () =>
            webhook.verify(
              request.body.replace("ü", "u"),
              headersOf(request),
              { jsonParse: false },
            ),
          /No matching signature/,
        );
      }
    },
  );

  await t.step(
    "exits 2 naming a malformed signing secret, never its value",
    async () => {
      const url = await fauxqs.createQueue("unsigned");
      const malformed = startMain(["forwarder"], {
        env: {
          ...base(url, "http://127.0.0.1:1/"),
          FORWARD_SIGNING_SECRET: "hunter2-not-whsec",
          FORWARD_METADATA: "beanstalk",
          FORWARD_BACKOFF_BASE_MS: "soon",
          FORWARD_BACKOFF_MAX_MS: "13h",
        },
      });
      assert.equal(await malformed.exited(), 2);
      const text = malformed.stderr.join("\n");
      assert.match(
        text,
        /Invalid FORWARD_SIGNING_SECRET: expected "whsec_" followed by the base64/,
      );
      assert.ok(!text.includes("hunter2"), "the secret must not be printed");
      assert.match(text, /Invalid FORWARD_METADATA "beanstalk"/);
      assert.match(text, /Invalid FORWARD_BACKOFF_BASE_MS "soon"/);
      assert.match(text, /Invalid FORWARD_BACKOFF_MAX_MS "13h"/);

      const dir = await Deno.makeTempDir();
      await Deno.writeTextFile(`${dir}/secret`, "whsec_###-hunter2\n");
      const twice = startMain(["forwarder"], {
        env: {
          ...base(url, "http://127.0.0.1:1/"),
          FORWARD_SIGNING_SECRET: SECRET,
          FORWARD_SIGNING_SECRET_FILE: `${dir}/secret`,
        },
      });
      assert.equal(await twice.exited(), 2);
      const lines = twice.stderr.join("\n");
      assert.match(
        lines,
        /Invalid FORWARD_SIGNING_SECRET_FILE ".*\/secret": the file does not hold a signing secret/,
      );
      assert.ok(!lines.includes("hunter2") && !lines.includes(SECRET.slice(6)));
      await Deno.writeTextFile(`${dir}/secret`, SECRET);
      const both = startMain(["forwarder"], {
        env: {
          ...base(url, "http://127.0.0.1:1/"),
          FORWARD_SIGNING_SECRET: SECRET,
          FORWARD_SIGNING_SECRET_FILE: `${dir}/secret`,
        },
      });
      assert.equal(await both.exited(), 2);
      assert.match(
        both.stderr.join("\n"),
        /FORWARD_SIGNING_SECRET and FORWARD_SIGNING_SECRET_FILE are both set/,
      );
      await Deno.remove(dir, { recursive: true });
    },
  );

  await t.step(
    "sends the Beanstalk worker headers on the first and the second receive",
    async () => {
      const url = await fauxqs.createQueue("worker-jobs", {
        VisibilityTimeout: "1",
      });
      let calls = 0;
      const sink = startSink({ status: () => ++calls === 1 ? 500 : 200 });
      const sent = await fauxqs.client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: '{"job":"resize"}',
          MessageAttributes: {
            kind: { DataType: "String", StringValue: "image resize" },
            size: { DataType: "Number", StringValue: "1024" },
            thumb: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2]) },
            city: { DataType: "String", StringValue: "Zürich" },
          },
        }),
      );
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARD_METADATA: "sqsd",
          FORWARD_RETRY_STATUSES: "500",
          LOG_LEVEL: "DEBUG",
        },
      });
      try {
        await sink.waitFor(2);
        await until(emptied(url));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      assert.equal(sink.requests.length, 2);
      const [first, second] = sink.requests.map((r) => r.headers);
      for (const [index, headers] of [first!, second!].entries()) {
        assert.equal(headers.get("x-aws-sqsd-msgid"), sent.MessageId);
        assert.equal(headers.get("x-aws-sqsd-queue"), "worker-jobs");
        assert.equal(
          headers.get("x-aws-sqsd-receive-count"),
          String(index + 1),
        );
        assert.equal(headers.get("x-aws-sqsd-sender-id"), "000000000000");
        assert.match(
          headers.get("x-aws-sqsd-sent-at")!,
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
        );
        assert.equal(headers.get("x-aws-sqsd-attr-kind"), "image resize");
        assert.equal(headers.get("x-aws-sqsd-attr-size"), "1024");
        assert.equal(headers.get("x-aws-sqsd-attr-thumb"), null);
        assert.equal(headers.get("x-aws-sqsd-attr-city"), null);
        assert.equal(headers.get("authorization"), TOKEN);
        assert.equal(headers.get("webhook-signature"), null);
      }
      const firstAt = first!.get("x-aws-sqsd-first-received-at");
      assert.match(firstAt!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(second!.get("x-aws-sqsd-first-received-at"), firstAt);
      assert.ok(
        Math.abs(Date.parse(firstAt!) - Date.now()) < 60_000,
        "first received a moment ago",
      );
      const output = main.stderr.join("\n");
      assert.match(
        output,
        /\[DEBUG\] Message attribute "thumb" of message \S+ is Binary: not sent as a header/,
      );
      assert.match(
        output,
        /\[WARNING\] Message attribute "city" of message \S+ cannot be an HTTP header/,
      );
      assert.ok(!output.includes("Zürich"), "the value is not logged");
    },
  );

  await t.step(
    "backs off exponentially, capped, follows Retry-After, loses nothing",
    async () => {
      // The queue's own visibility timeout (30 s) would space the attempts by 30 s:
      // the backoff (1 s base, 3 s cap) and Retry-After bring them back sooner.
      const url = await fauxqs.createQueue("backoff", {
        VisibilityTimeout: "30",
      });
      const arrivals: Record<string, { at: number; count: number }[]> = {};
      const failures: Record<string, number> = {
        exp: 4,
        polite: 1,
        greedy: 1,
        fine: 0,
      };
      const sink = startSink({
        reply: (r) => {
          const body = JSON.parse(r.body) as string;
          (arrivals[body] ??= []).push({
            at: performance.now(),
            count: Number(r.headers.get("x-aws-sqsd-receive-count")),
          });
          if (failures[body]! <= 0) return new Response("ok");
          failures[body]!--;
          const retryAfter = body === "polite"
            ? "3"
            : body === "greedy"
            ? "600"
            : undefined;
          return new Response("busy", {
            status: 503,
            headers: retryAfter ? { "retry-after": retryAfter } : {},
          });
        },
      });
      await fauxqs.send(url, ["exp", "polite", "greedy", "fine"]);
      const metricsPort = freePort();
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARD_RETRY_STATUSES: "503",
          FORWARD_BACKOFF_BASE_MS: "1000",
          FORWARD_BACKOFF_MAX_MS: "3s",
          FORWARD_METADATA: "sqsd",
          FORWARDER_METRICS_PORT: String(metricsPort),
        },
      });
      let metrics = "";
      try {
        await sink.waitFor(5 + 2 + 2 + 1, 40_000);
        await until(emptied(url));
        const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        metrics = await response.text();
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      // Each attempt once, each message posted to the end, none twice.
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(arrivals).map(([body, list]) => [
            body,
            list.map((a) => a.count),
          ]),
        ),
        { exp: [1, 2, 3, 4, 5], polite: [1, 2], greedy: [1, 2], fine: [1] },
      );
      const gaps = (body: string) =>
        arrivals[body]!.slice(1).map((a, i) =>
          (a.at - arrivals[body]![i]!.at) / 1000
        );
      // base × 2^(count − 1), ±10% rounded to whole seconds, capped at 3 s; each
      // gap adds the time to receive and post again.
      const expect = (body: string, seconds: number[]) => {
        const measured = gaps(body);
        seconds.forEach((s, i) => {
          const gap = measured[i]!;
          assert.ok(
            gap >= s - 0.3 && gap <= s + 1.5,
            `${body}: gap ${i + 1} is ${
              gap.toFixed(2)
            } s, expected about ${s} s (all: ${measured})`,
          );
        });
      };
      expect("exp", [1, 2, 3, 3]);
      expect("polite", [3]);
      expect("greedy", [3]);
      assert.match(
        metrics,
        /^homewire_forwarder_backoffs_total\{role="forwarder"\} 6$/m,
      );
      assert.match(
        metrics,
        /^homewire_forwarder_post_retries_total\{role="forwarder"\} 6$/m,
      );
      assert.match(
        metrics,
        /^homewire_forwarder_messages_deleted_total\{role="forwarder"\} 4$/m,
      );
      const output = main.stderr.join("\n");
      assert.match(
        output,
        /\[INFO\] Message \S+ comes back in 3 s \(the endpoint's Retry-After\)/,
      );
      assert.match(
        output,
        /\[INFO\] Message \S+ comes back in 2 s \(backoff after receive 2\)/,
      );
    },
  );

  await t.step(
    "an endpoint answering Retry-After: 0 to everything cannot spin it",
    async () => {
      const url = await fauxqs.createQueue("spin", { VisibilityTimeout: "30" });
      const arrivals: number[] = [];
      const sink = startSink({
        reply: () => {
          arrivals.push(performance.now());
          return new Response("busy", {
            status: 503,
            headers: { "retry-after": "0" },
          });
        },
      });
      await fauxqs.send(url, ["spin"]);
      const main = startMain(["forwarder"], {
        env: { ...base(url, sink.url), FORWARD_RETRY_STATUSES: "503" },
      });
      try {
        await sink.waitFor(1, 20_000);
        await new Promise((resolve) => setTimeout(resolve, 4000));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      // At most one post a second (an immediate return posted hundreds).
      const first = arrivals[0]!;
      const within = arrivals.filter((at) => at - first <= 4000).length;
      assert.ok(within <= 6, `${within} posts in 4 s`);
      assert.match(
        main.stderr.join("\n"),
        /\[INFO\] Message \S+ comes back in 1 s \(the endpoint's Retry-After\)/,
      );
      // Kept for redelivery, not lost.
      assert.ok(arrivals.length >= 2);
    },
  );

  await t.step(
    "backs off a FIFO message, its group's order rules unchanged",
    async () => {
      const url = await fauxqs.createQueue("backoff.fifo", {
        FifoQueue: "true",
        VisibilityTimeout: "30",
      });
      let firstCalls = 0;
      const sink = startSink({
        status: (r) => r.body === '"g:0"' && ++firstCalls <= 2 ? 503 : 200,
      });
      await fauxqs.client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: ["g:0", "g:1"].map((body, i) => ({
            Id: String(i),
            MessageBody: body,
            MessageGroupId: "g",
            MessageDeduplicationId: `d${i}`,
          })),
        }),
      );
      const started = performance.now();
      const main = startMain(["forwarder"], {
        env: {
          ...base(url, sink.url),
          FORWARD_RETRY_STATUSES: "503",
          FORWARD_BACKOFF_BASE_MS: "1s",
        },
      });
      try {
        await sink.waitFor(4);
        await until(emptied(url));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        await sink.stop();
      }
      // As before: a failed post does not hold back the next of its group received
      // in the same batch, and the queue hands out no more of a group while one is
      // in flight; the failed one comes back after its backoff, not after 30 s.
      const bodies = sink.bodies();
      assert.deepEqual(bodies.toSorted(), ['"g:0"', '"g:0"', '"g:0"', '"g:1"']);
      assert.equal(bodies[0], '"g:0"', "the group's first message first");
      assert.ok(performance.now() - started < 20_000);
      await main.waitFor(/comes back in 1 s \(backoff after receive 1\)/);
      // The receive asks for the receive count with a base alone (no sqsd headers).
      await main.waitFor(/comes back in 2 s \(backoff after receive 2\)/);
    },
  );

  await t.step(
    "without the new settings the request is byte for byte as before",
    async () => {
      const url = await fauxqs.createQueue("bytes");
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      const body = "plain é ✓";
      const captured = (async () => {
        const conn = await listener.accept();
        const buffer = new Uint8Array(65_536);
        let bytes = new Uint8Array(0);
        // Until the head and the Content-Length bytes of body have come (the head
        // is ASCII: its characters are its bytes).
        while (true) {
          const n = await conn.read(buffer);
          if (n === null) break;
          const more = new Uint8Array(bytes.length + n);
          more.set(bytes);
          more.set(buffer.subarray(0, n), bytes.length);
          bytes = more;
          const text = new TextDecoder().decode(bytes);
          const headEnd = text.indexOf("\r\n\r\n");
          if (headEnd < 0) continue;
          const head = text.slice(0, headEnd);
          const length = Number(/\ncontent-length: *(\d+)/i.exec(head)?.[1]);
          if (bytes.length >= headEnd + 4 + length) break;
        }
        await conn.write(
          new TextEncoder().encode(
            "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
          ),
        );
        conn.close();
        return bytes;
      })();
      // With an attribute, which only FORWARD_METADATA=sqsd turns into a header.
      await fauxqs.client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: body,
          MessageAttributes: { kind: { DataType: "String", StringValue: "k" } },
        }),
      );
      const main = startMain(["forwarder"], {
        env: base(url, `http://127.0.0.1:${port}/hook`),
      });
      let request: Uint8Array;
      try {
        request = await captured;
        await until(emptied(url));
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
        listener.close();
      }
      // The bytes themselves, so a change of encoding fails too.
      const sent = JSON.stringify(body);
      const expected =
        `POST /hook HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nAuthorization: ${TOKEN}\r\nContent-Type: application/json\r\ncontent-length: ${
          new TextEncoder().encode(sent).length
        }\r\n\r\n${sent}`;
      assert.deepEqual(
        request,
        new TextEncoder().encode(expected),
        new TextDecoder().decode(request),
      );
    },
  );

  await fauxqs.stop();
});
