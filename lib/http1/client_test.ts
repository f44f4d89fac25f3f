import assert from "node:assert/strict";
import { deflateRawSync, deflateSync } from "node:zlib";
import {
  ConnectionClosedError,
  InvalidFramingError,
  InvalidRequestError,
  InvalidResponseError,
  ResponseLengthMismatchError,
  SocketError,
  UnsupportedSchemeError,
} from "./errors.ts";
import { fetchExchange } from "./exchange.ts";
import {
  type ScriptStep,
  startRawServer,
  startScriptedServer,
  testClient,
} from "./_test_helpers.ts";

const OK = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 1\r\n\r\nok";

Deno.test("createHttp1Client() sends method, path, query, headers and body", async () => {
  const server = startRawServer(() => OK);
  const client = testClient();
  try {
    const response = await client.fetch(`${server.url}/a%20b/c?x=1&y=%2F`, {
      method: "PUT",
      headers: [["x-custom", "yes"], ["host", "ignored"], [
        "content-length",
        "99",
      ]],
      body: "héllo",
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-a"), "1");
    assert.equal(await response.text(), "ok");
    const [head] = server.heads;
    assert.match(head!, /^PUT \/a%20b\/c\?x=1&y=%2F HTTP\/1\.1\r\n/);
    assert.match(head!, new RegExp(`host: ${new URL(server.url).host}\r\n`));
    assert.match(head!, /x-custom: yes\r\n/);
    assert.match(head!, /content-length: 6\r\n/);
    assert.doesNotMatch(head!, /ignored|: 99/);
    assert.ok(head!.endsWith("\r\n\r\nhéllo"));
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() reuses one connection for calls in sequence", async () => {
  const server = startRawServer(() => OK);
  const client = testClient();
  try {
    for (let i = 0; i < 5; i++) {
      assert.equal(
        await (await client.fetch(`${server.url}/${i}`)).text(),
        "ok",
      );
    }
    assert.equal(server.connections, 1);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() retries once when a pooled connection was closed", async () => {
  const server = startRawServer(() => OK);
  const client = testClient();
  try {
    await (await client.fetch(`${server.url}/first`)).text();
    server.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await client.fetch(`${server.url}/second`);
    assert.equal(await response.text(), "ok");
    assert.equal(server.connections, 2);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() reads every framing of a response", async (t) => {
  const cases: [string, string, string][] = [
    [
      "chunked with extensions and trailers",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nx-trailer: t\r\n\r\n",
      "hello, world",
    ],
    [
      "informational responses first",
      "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nyes",
      "yes",
    ],
    [
      "until the connection closes",
      "HTTP/1.0 200 OK\r\n\r\nall of it",
      "all of it",
    ],
    ["an empty 204", "HTTP/1.1 204 No Content\r\n\r\n", ""],
    ["a zero length", "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", ""],
  ];
  for (const [name, raw, body] of cases) {
    await t.step(name, async () => {
      const server = startRawServer(() => raw, {
        closeAfterResponse: raw.startsWith("HTTP/1.0"),
      });
      const client = testClient();
      try {
        const response = await client.fetch(`${server.url}/`);
        assert.equal(await response.text(), body);
      } finally {
        client.close();
        await server.stop();
      }
    });
  }
});

Deno.test("createHttp1Client() decodes gzip like fetch and keeps the header", async () => {
  const zipped = new Uint8Array(
    await new Response(
      new Blob(["zip zip zip"]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    ).arrayBuffer(),
  );
  const head = new TextEncoder().encode(
    `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${zipped.length}\r\n\r\n`,
  );
  const raw = new Uint8Array(head.length + zipped.length);
  raw.set(head);
  raw.set(zipped, head.length);
  const server = startRawServer(() => raw);
  const client = testClient();
  try {
    const response = await client.fetch(`${server.url}/`);
    assert.equal(response.headers.get("content-encoding"), "gzip");
    assert.equal(await response.text(), "zip zip zip");
  } finally {
    client.close();
    await server.stop();
  }
});

/** A response head with `headers`, then `body`, as bytes. */
function rawResponse(headers: string, body: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`HTTP/1.1 200 OK\r\n${headers}\r\n`);
  const raw = new Uint8Array(head.length + body.length);
  raw.set(head);
  raw.set(body, head.length);
  return raw;
}

Deno.test("createHttp1Client() reads deflate with and without its zlib header, as browsers do", async () => {
  const text = "deflated ".repeat(40);
  for (const body of [deflateSync(text), deflateRawSync(text)]) {
    for (const framing of [`content-length: ${body.length}`, "chunked"]) {
      const server = startRawServer(() =>
        framing === "chunked"
          ? rawResponse(
            "content-encoding: deflate\r\ntransfer-encoding: chunked\r\n",
            new Uint8Array([
              ...new TextEncoder().encode(`${body.length.toString(16)}\r\n`),
              ...body,
              ...new TextEncoder().encode("\r\n0\r\n\r\n"),
            ]),
          )
          : rawResponse(`content-encoding: deflate\r\n${framing}\r\n`, body)
      );
      const client = testClient();
      try {
        for (let i = 0; i < 2; i++) {
          const response = await client.fetch(`${server.url}/${i}`);
          assert.equal(await response.text(), text);
        }
        assert.equal(server.connections, 1); // read to its end: reused
      } finally {
        client.close();
        await server.stop();
      }
    }
  }
});

Deno.test("createHttp1Client() returns an empty coded body as empty", async () => {
  for (const coding of ["gzip", "deflate", "br"]) {
    const server = startRawServer(() =>
      `HTTP/1.1 200 OK\r\ncontent-encoding: ${coding}\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`
    );
    const client = testClient();
    try {
      const res = await client.request(`${server.url}/`);
      assert.equal(res.decoded, true, coding);
      assert.equal(await new Response(res.body).text(), "", coding);
      await (await client.fetch(`${server.url}/again`)).text();
      assert.equal(server.connections, 1);
    } finally {
      client.close();
      await server.stop();
    }
  }
});

Deno.test("createHttp1Client() fails a body that does not decode", async () => {
  const server = startRawServer(() =>
    rawResponse(
      "content-encoding: gzip\r\ncontent-length: 12\r\n",
      new TextEncoder().encode("not gzipped!"),
    )
  );
  const client = testClient();
  try {
    const response = await client.fetch(`${server.url}/`);
    await assert.rejects(
      response.text(),
      (error) =>
        error instanceof InvalidResponseError &&
        /^Invalid gzip body from the server: /.test(error.message),
    );
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() drops a pooled connection the upstream closes while idle", async () => {
  const server = startRawServer(() => OK);
  const client = testClient();
  const post = (path: string) =>
    client.fetch(`${server.url}/${path}`, {
      method: "POST",
      headers: { "content-length": "5" },
      // A streamed body cannot be sent twice: no retry can hide a stale connection.
      body: new Blob(["hello"]).stream(),
    });
  try {
    assert.equal(await (await post("first")).text(), "ok");
    server.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await post("second");
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "ok");
    assert.equal(server.connections, 2);
    assert.match(server.heads[1]!, /^POST \/second[^]*\r\n\r\nhello$/);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() streams a request body with chunked framing", async () => {
  const server = startRawServer(() => OK);
  const client = testClient();
  try {
    const body = new Blob(["part one, ", "part two"]).stream();
    const response = await client.fetch(`${server.url}/up`, {
      method: "POST",
      body,
    });
    await response.text();
    // The raw server does not de-chunk: the framing is visible as sent.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(server.heads[0]!, /transfer-encoding: chunked\r\n/);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() fails clearly on broken responses", async (t) => {
  const cases: [string, string, RegExp, string][] = [
    [
      "a bad status line",
      "HTCPCP/1.0 418 teapot\r\n\r\n",
      /^Invalid status line from the server: "HTCPCP\/1\.0 418 teapot"$/,
      "HTTP1_INVALID_STATUS",
    ],
    [
      "a four-digit status",
      "HTTP/1.1 2000 OK\r\ncontent-length: 0\r\n\r\n",
      /^Invalid status line/,
      "HTTP1_INVALID_STATUS",
    ],
    [
      "a control character in the reason phrase",
      "HTTP/1.1 200 O\x01K\r\ncontent-length: 0\r\n\r\n",
      /^Invalid status line/,
      "HTTP1_INVALID_STATUS",
    ],
    [
      "a header line without a colon",
      "HTTP/1.1 200 OK\r\nbad header line\r\ncontent-length: 0\r\n\r\n",
      /^Invalid header line from the server: no colon$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "a folded header line",
      "HTTP/1.1 200 OK\r\nx-a: 1\r\n  more: of x-a\r\ncontent-length: 0\r\n\r\n",
      /^Invalid header line from the server: a folded line \(obs-fold\)$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "a header name that is not a token",
      "HTTP/1.1 200 OK\r\nbad name: 1\r\ncontent-length: 0\r\n\r\n",
      /^Invalid header line from the server: name "bad name"$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "a control character in a value (Deno.serve would fail relaying it)",
      "HTTP/1.1 200 OK\r\nx-a: a\x01b\r\ncontent-length: 0\r\n\r\n",
      /^Invalid header line from the server: the value of "x-a" holds a control character$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "a length that is no number",
      "HTTP/1.1 200 OK\r\ncontent-length: abc\r\n\r\nok",
      /^Invalid framing from the server: Content-Length is not a number of bytes$/,
      "HTTP1_INVALID_FRAMING",
    ],
    [
      "two different lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok!",
      /^Invalid framing from the server: several Content-Length fields$/,
      "HTTP1_INVALID_FRAMING",
    ],
    [
      "a list of different lengths",
      "HTTP/1.1 200 OK\r\ncontent-length: 2, 3\r\n\r\nok!",
      /^Invalid framing from the server: Content-Length is not a number/,
      "HTTP1_INVALID_FRAMING",
    ],
    [
      "an empty length",
      "HTTP/1.1 200 OK\r\ncontent-length: \r\n\r\nok",
      /^Invalid framing from the server: Content-Length is not a number/,
      "HTTP1_INVALID_FRAMING",
    ],
    [
      "a length beside chunked",
      "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
      /^Invalid framing from the server: Content-Length beside Transfer-Encoding$/,
      "HTTP1_INVALID_FRAMING",
    ],
    [
      "blanks before a header's colon",
      "HTTP/1.1 200 OK\r\nx-a : 1\r\ncontent-length: 2\r\n\r\nok",
      /^Invalid header line from the server: blanks after the name "x-a"$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "a line ending in a bare LF",
      "HTTP/1.1 200 OK\r\nx-a: 1\ncontent-length: 2\r\n\r\nok",
      /^Invalid line from the server: it ends in a bare LF$/,
      "HTTP1_INVALID_HEADER",
    ],
    [
      "an unasked 101",
      "HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n",
      /^Invalid response from the server: 101 Switching Protocols, unasked$/,
      "HTTP1_INVALID_STATUS",
    ],
  ];
  for (const [name, raw, expected, code] of cases) {
    await t.step(name, async () => {
      const server = startRawServer(() => raw);
      const client = testClient();
      try {
        await assert.rejects(
          client.fetch(`${server.url}/`),
          (error: Error) =>
            error instanceof InvalidResponseError && error.code === code &&
            expected.test(error.message),
        );
      } finally {
        client.close();
        await server.stop();
      }
    });
  }
  await t.step("a whole response refuses a control character too", async () => {
    const server = startRawServer(() =>
      "HTTP/1.1 200 OK\r\nx-a: a\x01b\r\ncontent-length: 2\r\n\r\nok"
    );
    const client = testClient();
    try {
      await assert.rejects(
        client.exchange(`${server.url}/`),
        InvalidResponseError,
      );
    } finally {
      client.close();
      await server.stop();
    }
  });
  await t.step(
    "a chunk size with junk is refused, the head has already come",
    async () => {
      const server = startRawServer(() =>
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2 junk\r\nok\r\n0\r\n\r\n"
      );
      const client = testClient();
      try {
        const response = await client.fetch(`${server.url}/`);
        await assert.rejects(
          response.text(),
          (error: Error) =>
            error instanceof InvalidFramingError &&
            error.message ===
              "Invalid framing from the server: invalid chunk size line",
        );
      } finally {
        client.close();
        await server.stop();
      }
    },
  );
  await t.step("a closed connection is not an invalid response", async () => {
    const server = startRawServer(() => null);
    const client = testClient();
    try {
      await assert.rejects(
        client.fetch(`${server.url}/`),
        (error: Error) =>
          error instanceof ConnectionClosedError &&
          error.code === "ECONNRESET" && error.received === 0,
      );
    } finally {
      client.close();
      await server.stop();
    }
  });
  await t.step("a body cut short errors the stream", async () => {
    const server = startRawServer((_, index) =>
      index === 0 ? "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort" : null
    );
    const client = testClient();
    try {
      const response = await client.fetch(`${server.url}/`);
      const reading = response.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      server.dropConnections();
      await assert.rejects(reading, ResponseLengthMismatchError);
    } finally {
      client.close();
      await server.stop();
    }
  });
  await t.step("a refused connection rejects", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      testClient().fetch(`http://127.0.0.1:${port}/`),
      (error: Error) =>
        error instanceof SocketError && error.code === "ECONNREFUSED" &&
        error.cause instanceof Deno.errors.ConnectionRefused,
    );
  });
});

Deno.test("createHttp1Client() rejects with the abort reason and closes the call", async () => {
  const server = startRawServer(() => "HTTP/1.1 200 OK\r\n"); // never finishes the head
  const client = testClient();
  try {
    const controller = new AbortController();
    const reason = new Error("too slow");
    const call = client.fetch(`${server.url}/`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 30);
    await assert.rejects(call, (error) => error === reason);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("request() returns the raw header list; fetch() and exchange() wrap it", async () => {
  const server = startRawServer(() =>
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-a: 1\r\nx-a: 2\r\n\r\n" +
    "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
  );
  const client = testClient();
  try {
    const res = await client.request(`${server.url}/0`);
    assert.deepEqual(res.headers, [
      ["transfer-encoding", "chunked"],
      ["x-a", "1"],
      ["x-a", "2"],
    ]);
    assert.equal(res.decoded, false);
    assert.equal(await new Response(res.body).text(), "abcde");
    const response = await client.fetch(`${server.url}/1`);
    assert.equal(response.headers.get("x-a"), "1, 2");
    assert.equal(await response.text(), "abcde");
    const whole = await client.exchange(`${server.url}/2`);
    assert.equal(new TextDecoder().decode(whole.body), "abcde");
    assert.equal(server.connections, 1); // the framing was understood: reused
    await assert.rejects(
      client.request("https://example.com/"),
      UnsupportedSchemeError,
    );
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("exchange() returns the whole response and reuses the connection", async (t) => {
  const cases: [string, string, string, boolean][] = [
    ["a small body that came with its head", OK, "ok", true],
    [
      "chunked (read through the stream path)",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
      "ok",
      true,
    ],
    ["an empty 204", "HTTP/1.1 204 No Content\r\n\r\n", "", true],
    [
      "connection: close",
      "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok",
      "ok",
      false,
    ],
  ];
  for (const [name, raw, body, reused] of cases) {
    await t.step(name, async () => {
      const server = startRawServer(() => raw);
      const client = testClient();
      try {
        for (let i = 0; i < 2; i++) {
          const res = await client.exchange(`${server.url}/${i}`, {
            method: "POST",
            headers: [["x-custom", "yes"]],
            body: "héllo",
          });
          assert.equal(res.status, raw.includes("204") ? 204 : 200);
          assert.equal(new TextDecoder().decode(res.body), body);
        }
        assert.equal(server.connections, reused ? 1 : 2);
        assert.match(server.heads[0]!, /^POST \/0 HTTP\/1\.1\r\n/);
        assert.match(
          server.heads[0]!,
          /x-custom: yes\r\ncontent-length: 6\r\n/,
        );
        assert.ok(server.heads[0]!.endsWith("\r\n\r\nhéllo"));
      } finally {
        client.close();
        await server.stop();
      }
    });
  }

  await t.step("header names in lower case, values as sent", async () => {
    const server = startRawServer(() =>
      "HTTP/1.1 201 Created\r\nX-Request-Id: AbC\r\ncontent-length: 0\r\n\r\n"
    );
    const client = testClient();
    try {
      const res = await client.exchange(server.url);
      assert.equal(res.status, 201);
      assert.equal(res.statusText, "Created");
      assert.deepEqual(res.headers, [
        ["x-request-id", "AbC"],
        ["content-length", "0"],
      ]);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

Deno.test("exchange() with discardBody keeps the status and drops a long body", async () => {
  const big = "x".repeat(300_000);
  const server = startRawServer(() =>
    `HTTP/1.1 500 Oops\r\ncontent-length: ${big.length}\r\n\r\n${big}`
  );
  const client = testClient();
  try {
    const res = await client.exchange(server.url, {
      method: "POST",
      body: "{}",
      discardBody: true,
    });
    assert.equal(res.status, 500);
    assert.equal(res.body.length, 0);
    // The unread body made the connection unusable: the next call opens another.
    const again = await client.exchange(server.url, { discardBody: true });
    assert.equal(again.status, 500);
    assert.equal(server.connections, 2);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("fetchExchange() returns like the pooled client's exchange", async () => {
  const server = startRawServer(() => OK);
  try {
    const res = await fetchExchange()(`${server.url}/f`, {
      method: "PUT",
      body: new TextEncoder().encode("bytes"),
    });
    assert.equal(res.status, 200);
    assert.equal(new TextDecoder().decode(res.body), "ok");
    assert.ok(server.heads[0]!.endsWith("\r\n\r\nbytes"));
  } finally {
    await server.stop();
  }
});

Deno.test("exchange() and fetchExchange() return a redirect instead of following it", async () => {
  const server = startRawServer(() =>
    "HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 0\r\n\r\n"
  );
  const client = testClient();
  try {
    const pooled = await client.exchange(`${server.url}/a`, { method: "POST" });
    const fetched = await fetchExchange()(`${server.url}/b`, {
      method: "POST",
    });
    for (const res of [pooled, fetched]) {
      assert.equal(res.status, 302);
    }
    assert.deepEqual(
      server.heads.map((head) => head.split(" ").slice(0, 2).join(" ")),
      ["POST /a", "POST /b"],
    );
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() refuses a bad method, header name or value before writing", async (t) => {
  const server = startRawServer(() => OK);
  const client = testClient();
  const cases: [string, RequestInit][] = [
    ["a method with a blank", { method: "GE T" }],
    ["a method with CR LF", { method: "GET\r\nx-evil: 1" }],
    ["a name with a blank", { headers: [["bad name", "1"]] }],
    ["a name with a colon", { headers: [["x:y", "1"]] }],
    ["a value with CR LF", { headers: [["x-a", "1\r\nx-evil: 1"]] }],
    ["a value with a bare LF", { headers: [["x-a", "1\nx-evil: 1"]] }],
    ["a value with a NUL", { headers: [["x-a", "1\0"]] }],
    ["a value beyond Latin-1", { headers: [["x-a", "\u0100"]] }],
  ];
  try {
    for (const [name, init] of cases) {
      await t.step(name, async () => {
        await assert.rejects(
          client.fetch(`${server.url}/`, init),
          (error: Error) =>
            error instanceof InvalidRequestError &&
            error.code === "HTTP1_INVALID_REQUEST" &&
            /^Invalid /.test(error.message),
        );
        await assert.rejects(
          client.exchange(`${server.url}/`, init as never),
          InvalidRequestError,
        );
      });
    }
    assert.equal(server.connections, 0);
    assert.deepEqual(server.heads, []);
  } finally {
    client.close();
    await server.stop();
  }
});

Deno.test("createHttp1Client() never sends a POST twice; an idempotent call is retried once", async (t) => {
  for (
    const [method, retryMethods, sent] of [
      ["POST", undefined, 1],
      ["PATCH", undefined, 1],
      ["GET", undefined, 2],
      ["PUT", undefined, 2],
      ["POST", ["POST"], 2],
    ] as const
  ) {
    await t.step(
      `${method}${retryMethods ? " with retryMethods POST" : ""}`,
      async () => {
        // The second request (the first on the reused connection) is read, then
        // the connection closes without a response.
        const server = startRawServer((_, index) => index === 1 ? null : OK);
        const client = testClient({ retryMethods });
        try {
          await client.exchange(`${server.url}/warm`);
          const call = client.exchange(`${server.url}/call`, {
            method,
            body: "once",
          });
          if (sent === 1) await assert.rejects(call, /Connection closed/);
          else assert.equal((await call).status, 200);
          const calls = server.heads.filter((head) =>
            head.startsWith(`${method} /call `)
          );
          assert.equal(calls.length, sent);
        } finally {
          client.close();
          await server.stop();
        }
      },
    );
  }
  await t.step(
    "a GET is not retried after a byte of the response came",
    async () => {
      const server = startScriptedServer((head) =>
        head.startsWith("GET /call ")
          ? { steps: ["HTTP/1.1 200 OK\r\ncontent-le"], close: true }
          : { steps: [OK] }
      );
      const client = testClient();
      try {
        await client.exchange(`${server.url}/warm`);
        await assert.rejects(client.exchange(`${server.url}/call`), /closed/);
        assert.equal(server.connections, 1);
        assert.equal(
          server.heads.filter((head) => head.startsWith("GET /call ")).length,
          1,
        );
      } finally {
        client.close();
        await server.stop();
      }
    },
  );
});

Deno.test("createHttp1Client() never reuses a connection that sent bytes not asked for", async (t) => {
  const cases: [string, ScriptStep[]][] = [
    ["with the response", [`${OK}junk`]],
    ["a moment after the response", [
      OK,
      5,
      "HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecret",
    ]],
    ["after a 204", ["HTTP/1.1 204 No Content\r\n\r\n", 5, "body"]],
  ];
  for (const [name, steps] of cases) {
    await t.step(name, async () => {
      const server = startScriptedServer((head) =>
        head.startsWith("GET /first ")
          ? { steps }
          : { steps: ["HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecond"] }
      );
      const client = testClient();
      try {
        await client.exchange(`${server.url}/first`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const second = await client.exchange(`${server.url}/second`);
        assert.equal(new TextDecoder().decode(second.body), "second");
        assert.equal(server.connections, 2);
      } finally {
        client.close();
        await server.stop();
      }
    });
  }
});

Deno.test("createHttp1Client() never sends a streamed body other than its declared Content-Length", async (t) => {
  // Each connection: its bytes recorded, one "ok" per request head seen.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received: string[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      const index = received.push("") - 1;
      (async () => {
        const buffer = new Uint8Array(4096);
        let responded = 0;
        try {
          while (true) {
            const count = await conn.read(buffer);
            if (count === null) break;
            received[index] += new TextDecoder().decode(
              buffer.subarray(0, count),
            );
            const heads = received[index]!.split("\r\n\r\n").length - 1;
            for (; responded < heads; responded++) {
              await conn.write(
                new TextEncoder().encode(
                  "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
                ),
              );
            }
          }
        } catch {
          // the client closed it
        }
        conn.close();
      })();
    }
  })();
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const client = testClient();
  const streamOf = (text: string) =>
    ReadableStream.from([new TextEncoder().encode(text)]);
  try {
    await t.step("longer: the excess never goes out", async () => {
      await assert.rejects(
        async () => {
          const res = await client.request(`${url}/up`, {
            method: "POST",
            headers: [["content-length", "3"]],
            body: streamOf("helGET /smuggled HTTP/1.1\r\nhost: x\r\n\r\n"),
          });
          await new Response(res.body).text();
        },
        (error: Error) =>
          error instanceof TypeError && /Content-Length 3/.test(error.message),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(
        received.every((bytes) => !bytes.includes("/smuggled")),
        JSON.stringify(received),
      );
    });
    await t.step("shorter: the connection is not used again", async () => {
      const before = received.length;
      const res = await client.request(`${url}/short`, {
        method: "POST",
        headers: [["content-length", "10"]],
        body: streamOf("abc"),
      }).then((res) => new Response(res.body).text()).catch((e) => e);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const next = await client.request(`${url}/next`);
      assert.equal(await new Response(next.body).text(), "ok");
      assert.ok(
        received.slice(before).every((bytes) =>
          !bytes.includes("/short") || !bytes.includes("/next")
        ),
        `${String(res)} ${JSON.stringify(received)}`,
      );
    });
  } finally {
    client.close();
    listener.close();
    await serving.catch(() => {});
  }
});
