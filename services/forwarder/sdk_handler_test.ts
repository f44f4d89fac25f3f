import assert from "node:assert/strict";
import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createHttp1Client } from "../../lib/http1/client.ts";
import { createSdkHandler, type SdkHttpRequest } from "./sdk_handler.ts";
import { type Exchange, exchangeOver } from "../../lib/http1/exchange.ts";
import { startSink } from "./_test_sink.ts";

function request(port: number, extra: Partial<SdkHttpRequest> = {}) {
  return {
    protocol: "http:",
    hostname: "127.0.0.1",
    port,
    path: "/queue",
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.0",
      "content-length": "2",
      host: `127.0.0.1:${port}`,
      "x-amz-target": "AmazonSQS.ReceiveMessage",
    },
    body: "{}",
    ...extra,
  };
}

Deno.test("createSdkHandler()", async (t) => {
  const server = startSink({
    reply: () =>
      new Response('{"Messages":[]}', {
        headers: { "x-amzn-requestid": "r1" },
      }),
  });
  const handler = createSdkHandler();

  await t.step("sends method, path, headers and body", async () => {
    const { response } = await handler.handle(request(server.port));
    const got = server.requests.at(-1)!;
    assert.equal(got.method, "POST");
    assert.equal(got.url, `http://127.0.0.1:${server.port}/queue`);
    assert.equal(got.headers.get("x-amz-target"), "AmazonSQS.ReceiveMessage");
    assert.equal(got.headers.get("content-length"), "2");
    assert.equal(got.body, "{}");
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers["x-amzn-requestid"], "r1");
    assert.equal(new TextDecoder().decode(response.body), '{"Messages":[]}');
  });

  await t.step("encodes the query as SigV4 canonicalises it", async () => {
    await handler.handle(request(server.port, {
      method: "GET",
      body: undefined,
      query: { "a b": "x/y*", flag: null, many: ["1", "2"] },
    }));
    assert.equal(
      server.requests.at(-1)!.url,
      `http://127.0.0.1:${server.port}/queue?a%20b=x%2Fy%2A&flag&many=1&many=2`,
    );
  });

  await t.step("rejects once the abort signal fires", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(
      handler.handle(request(server.port), { abortSignal: controller.signal }),
    );
  });

  await t.step("honours the SDK's older onabort-style signal", async () => {
    const signal = { aborted: true, onabort: null };
    await assert.rejects(
      handler.handle(request(server.port), { abortSignal: signal }),
    );
  });

  await t.step("carries a whole SDK call", async () => {
    const client = new SQSClient({
      region: "us-east-1",
      endpoint: `http://127.0.0.1:${server.port}`,
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
      requestHandler: handler,
    });
    const reply = await client.send(
      new ReceiveMessageCommand({ QueueUrl: "http://127.0.0.1/1/q" }),
    );
    assert.deepEqual(reply.Messages, []);
    const got = server.requests.at(-1)!;
    assert.match(got.headers.get("authorization") ?? "", /^AWS4-HMAC-SHA256 /);
    assert.equal(JSON.parse(got.body).QueueUrl, "http://127.0.0.1/1/q");
    client.destroy();
  });

  await server.stop();
});

Deno.test("createSdkHandler() surfaces a refused connection", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  await assert.rejects(createSdkHandler().handle(request(port)));
});

Deno.test("the SDK retries a call whose connection closed without a response", async () => {
  // The first connection is closed without a response; the second gets one.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  let connections = 0;
  const serving = (async () => {
    for await (const conn of listener) {
      connections++;
      const buffer = new Uint8Array(65536);
      await conn.read(buffer);
      if (connections > 1) {
        const body = '{"Messages":[]}';
        await conn.write(
          new TextEncoder().encode(
            `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
          ),
        );
      }
      conn.close();
    }
  })().catch(() => {});
  const http = createHttp1Client();
  const client = new SQSClient({
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: "a", secretAccessKey: "b" },
    requestHandler: createSdkHandler(exchangeOver(http.request)),
  });
  try {
    const reply = await client.send(
      new ReceiveMessageCommand({ QueueUrl: "http://127.0.0.1/1/q" }),
    );
    assert.deepEqual(reply.Messages, []);
    assert.equal(connections, 2);
  } finally {
    client.destroy();
    http.close();
    listener.close();
    await serving;
  }
});

Deno.test("createSdkHandler() joins a header sent several times, in order (RFC 9110 5.3)", async () => {
  const exchange: Exchange = () =>
    Promise.resolve({
      status: 200,
      statusText: "OK",
      headers: [
        ["x-amz-list", "a"],
        ["content-type", "application/x-amz-json-1.0"],
        ["x-amz-list", "b, c"],
      ],
      body: new Uint8Array(),
    });
  const { response } = await createSdkHandler(exchange).handle(request(1));
  assert.deepEqual(response.headers, {
    "x-amz-list": "a, b, c",
    "content-type": "application/x-amz-json-1.0",
  });
});
