/**
 * Per-route query parameters and headers (`PROXY_ROUTE_<NAME>_QUERY`,
 * `PROXY_ROUTE_<NAME>_HEADERS` and their `_FILE` twins) through `main.ts proxy`,
 * against a recording upstream: added, replacing the client's, on their route only,
 * refused at start when malformed, and never in a log line (at DEBUG), a rewritten
 * redirect or an error response.
 */
import assert from "node:assert/strict";
import { startRawServer } from "../lib/http1/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

const KEY = "owm-k3y-0123456789abcdef";
const HEADER_KEY = "hdr-s3cret-fedcba9876543210";
const FILE_KEY = "file-s3cret-abcdefabcdef";
/** Every form a secret could take in text. */
const SECRETS = [KEY, HEADER_KEY, FILE_KEY, "s3cret", "k3y"];

/** What the recording upstream saw of one call. */
interface Seen {
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** An upstream recording each call; `/redirect` redirects, `/echo` echoes the key in headers, `/hang` never responds. */
function startRecordingUpstream() {
  const seen: Seen[] = [];
  const release = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const raw = request.url.replace(/^[a-z]+:\/\/[^/]*/i, "");
      const question = raw.indexOf("?");
      const call: Seen = {
        path: url.pathname,
        query: question < 0 ? "" : raw.slice(question + 1),
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      seen.push(call);
      if (url.pathname.endsWith("/hang")) {
        await release.promise;
        return new Response("late");
      }
      if (url.pathname.endsWith("/redirect")) {
        return new Response(null, {
          status: 302,
          headers: {
            location: `${url.origin}/base/next${url.search}`,
            "content-location": `/base/here${url.search}#frag`,
          },
        });
      }
      if (url.pathname.endsWith("/echo")) {
        return Response.json(call, {
          headers: {
            "x-echo-key": request.headers.get("x-api-key") ?? "",
            link: `<${request.url}&page=2>; rel="next"`,
          },
        });
      }
      return Response.json(call);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    async stop() {
      release.resolve();
      await server.shutdown();
    },
  };
}

/** Every line the process wrote must be free of the secrets. */
function assertNoSecret(lines: readonly string[]) {
  for (const line of lines) {
    for (const secret of SECRETS) {
      assert.ok(!line.includes(secret), `secret in: ${line}`);
    }
  }
}

Deno.test("proxy role adds each route's parameters and headers, never showing them", async (t) => {
  const upstream = startRecordingUpstream();
  // An upstream whose response is not HTTP, quoting the key it was sent.
  const broken = startRawServer((head) =>
    `HTTP/1.1 200 OK\r\nnot a header ${
      /appid=([^& ]+)/.exec(head)?.[1]
    }\r\ncontent-length: 2\r\n\r\nok`
  );
  const dir = await Deno.makeTempDir({ prefix: "homewire-secrets-" });
  await Deno.writeTextFile(
    `${dir}/headers.json`,
    `{\n  "Authorization": "Bearer ${FILE_KEY}"\n}\n`,
  );
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: [
        `weather=${upstream.url}/base`,
        `plain=${upstream.url}/plain`,
        `file-route=${upstream.url}/file`,
        "down=http://127.0.0.1:1/x",
        `broken=${broken.url}/b`,
      ].join(","),
      PROXY_ROUTE_WEATHER_QUERY: `appid=${KEY}&units=metric`,
      PROXY_ROUTE_WEATHER_HEADERS: `{"X-Api-Key": "${HEADER_KEY}"}`,
      PROXY_ROUTE_FILE_ROUTE_HEADERS_FILE: `${dir}/headers.json`,
      PROXY_ROUTE_DOWN_QUERY: `appid=${KEY}`,
      PROXY_ROUTE_BROKEN_QUERY: `appid=${KEY}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_TIMEOUT_MS: "1000",
      LOG_LEVEL: "DEBUG",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await proxy.waitFor(/\[INFO\] proxy listening on /);
    await proxy.waitFor(
      /proxy route \/weather -> .* \(adding parameter appid, parameter units, header x-api-key\)$/,
    );

    await t.step(
      "parameters and headers are added, the client's replaced",
      async () => {
        const response = await fetch(
          `${base}/weather/now?q=K%C3%B6ln&appid=clients&units=imperial`,
          {
            headers: { "X-Api-Key": "clients-own", accept: "application/json" },
          },
        );
        assert.equal(response.status, 200);
        const seen: Seen = await response.json();
        assert.equal(seen.path, "/base/now");
        assert.equal(seen.query, `q=K%C3%B6ln&appid=${KEY}&units=metric`);
        assert.equal(seen.headers["x-api-key"], HEADER_KEY);
        assert.equal(seen.headers["accept"], "application/json");
      },
    );
    await t.step("a POST keeps its body, streamed or not", async () => {
      const posted: Seen = await (await fetch(`${base}/weather/items`, {
        method: "POST",
        body: "payload",
        headers: { "content-type": "text/plain" },
      })).json();
      assert.deepEqual(
        [posted.body, posted.headers["x-api-key"], posted.query],
        ["payload", HEADER_KEY, `appid=${KEY}&units=metric`],
      );
      const streamed: Seen = await (await fetch(`${base}/weather/items`, {
        method: "PUT",
        body: ReadableStream.from([new TextEncoder().encode("streamed")]),
      })).json();
      assert.deepEqual(
        [streamed.body, streamed.headers["x-api-key"]],
        ["streamed", HEADER_KEY],
      );
    });
    await t.step(
      "a _FILE twin is read, and nothing is added on other routes",
      async () => {
        const fromFile: Seen = await (await fetch(`${base}/file-route/x`))
          .json();
        assert.equal(fromFile.headers["authorization"], `Bearer ${FILE_KEY}`);
        assert.equal(fromFile.query, "");
        const plain: Seen = await (await fetch(
          `${base}/plain/x?appid=clients&units=imperial`,
          { headers: { "x-api-key": "clients-own" } },
        )).json();
        assert.equal(plain.query, "appid=clients&units=imperial");
        assert.equal(plain.headers["x-api-key"], "clients-own");
        assert.equal(plain.headers["authorization"], undefined);
      },
    );
    await t.step(
      "a redirect comes back without the added parameters",
      async () => {
        const response = await fetch(`${base}/weather/redirect?q=1`, {
          redirect: "manual",
        });
        assert.equal(response.status, 302);
        assert.equal(response.headers.get("location"), "/weather/next?q=1");
        assert.equal(
          response.headers.get("content-location"),
          "/weather/here?q=1#frag",
        );
      },
    );
    await t.step(
      "response headers echoing a secret are blanked; the body is the upstream's",
      async () => {
        const response = await fetch(`${base}/weather/echo?q=2`);
        const headers = [...response.headers].map(([n, v]) => `${n}: ${v}`);
        assertNoSecret(headers);
        assert.equal(response.headers.get("x-echo-key"), "REDACTED");
        assert.match(response.headers.get("link")!, /appid=REDACTED/);
        // What the upstream puts in its body is its own business.
        assert.ok((await response.text()).includes(KEY));
      },
    );
    await t.step(
      "error responses hold no secret: down, invalid, time-out",
      async () => {
        const down = await fetch(`${base}/down/x?q=1`);
        assert.equal(down.status, 502);
        const downText = await down.text();
        assert.match(downText, /unreachable/);
        const invalid = await fetch(`${base}/broken/x?q=1`);
        assert.equal(invalid.status, 502);
        const invalidText = await invalid.text();
        assert.match(invalidText, /invalid HTTP response/);
        const slow = await fetch(`${base}/weather/hang?q=1`);
        assert.equal(slow.status, 504);
        const slowText = await slow.text();
        assertNoSecret([downText, invalidText, slowText]);
        await proxy.waitFor(
          /\[WARNING\] Upstream of route "down" is unreachable/,
        );
        await proxy.waitFor(
          /\[WARNING\] Upstream of route "broken" sent an invalid/,
        );
        await proxy.waitFor(
          /\[WARNING\] Upstream of route "weather" did not respond/,
        );
      },
    );
    assert.equal(await proxy.stop(), 0);
    const lines = [...proxy.stdout, ...proxy.stderr];
    // The DEBUG lines name each target, without its query.
    assert.ok(
      lines.some((line) =>
        line.includes('[DEBUG] GET on route "weather" to http://127.0.0.1:') &&
        line.endsWith("/base/now?…")
      ),
      lines.join("\n"),
    );
    assertNoSecret(lines);
  } finally {
    await proxy.stop();
    await upstream.stop();
    await broken.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("proxy role refuses malformed additions at start, naming the variable, never the value", async (t) => {
  const routes = "weather=http://127.0.0.1:1/w,my-api=http://127.0.0.1:1/a";
  const cases: [Record<string, string>, RegExp][] = [
    [
      {
        PROXY_ROUTE_WEATHER_QUERY: `appid=${KEY}`,
        PROXY_ROUTE_WEATHER_QUERY_FILE: "/run/secrets/q",
      },
      /Invalid PROXY_ROUTE_WEATHER_QUERY: PROXY_ROUTE_WEATHER_QUERY_FILE is set too/,
    ],
    [
      {
        PROXY_ROUTE_WEATHER_HEADERS: `{"X-Api-Key":"${HEADER_KEY}"}`,
        PROXY_ROUTE_WEATHER_HEADERS_FILE: "/run/secrets/h",
      },
      /Invalid PROXY_ROUTE_WEATHER_HEADERS: PROXY_ROUTE_WEATHER_HEADERS_FILE is set too/,
    ],
    [
      { PROXY_ROUTE_WEATHERS_QUERY: `appid=${KEY}` },
      /Invalid PROXY_ROUTE_WEATHERS_QUERY: it names no route of PROXY_ROUTES/,
    ],
    [
      {
        PROXY_ROUTES: `${routes},my_api=http://127.0.0.1:1/b`,
        PROXY_ROUTE_MY_API_HEADERS: `{"X-Api-Key":"${HEADER_KEY}"}`,
      },
      /Invalid PROXY_ROUTE_MY_API_HEADERS: routes "my-api" and "my_api" both map to it/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"X-Api-Key": ${HEADER_KEY}}` },
      /Invalid PROXY_ROUTE_WEATHER_HEADERS: it is not valid JSON/,
    ],
    [
      { PROXY_ROUTE_MY_API_HEADERS: `{"X Api Key": "${HEADER_KEY}"}` },
      /Invalid PROXY_ROUTE_MY_API_HEADERS: the name of header 1 of 1 is not a token/,
    ],
    [
      { PROXY_ROUTE_WEATHER_QUERY_FILE: "/nowhere/query.txt" },
      /Invalid PROXY_ROUTE_WEATHER_QUERY_FILE: cannot read file "\/nowhere\/query.txt"/,
    ],
  ];
  for (const [env, expected] of cases) {
    await t.step(Object.keys(env).join(" + "), async () => {
      const proxy = startMain(["proxy"], {
        env: { PROXY_ROUTES: routes, ...env },
      });
      assert.equal(await proxy.exited(), 2);
      const lines = [...proxy.stdout, ...proxy.stderr];
      assert.ok(
        lines.some((line) => expected.test(line)),
        lines.join("\n"),
      );
      assertNoSecret(lines);
    });
  }
});
