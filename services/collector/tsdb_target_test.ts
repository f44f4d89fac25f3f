import assert from "node:assert/strict";
import { type TsdbTarget, tsdbTarget } from "./tsdb_target.ts";

function v1(target: TsdbTarget) {
  assert.equal(target.api, "v1");
  return target;
}

Deno.test("tsdbTarget() builds the v1 /write URL with basic auth", () => {
  const target = v1(tsdbTarget({
    host: "influx.local",
    port: 8086,
    api: "v1",
    database: "home",
    username: "pi",
    password: "sécret",
  }));
  assert.equal(
    target.url,
    "http://influx.local:8086/write?db=home&precision=ms",
  );
  assert.equal(target.label, target.url);
  const encoded = target.headers.Authorization!.replace("Basic ", "");
  const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  assert.equal(new TextDecoder().decode(bytes), "pi:sécret");
});

Deno.test("tsdbTarget() builds the v2 /api/v2/write URL with the token in a header", () => {
  assert.deepEqual(
    tsdbTarget({
      host: "https://tsdb.example.com/",
      api: "v2",
      database: "home",
      org: "my org",
      token: "t0k",
    }),
    {
      api: "v2",
      url:
        "https://tsdb.example.com/api/v2/write?org=my%20org&bucket=home&precision=ms",
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        Authorization: "Token t0k",
      },
      label:
        "https://tsdb.example.com/api/v2/write?org=my%20org&bucket=home&precision=ms",
    },
  );
  const bare = tsdbTarget({
    host: "::1",
    port: 1,
    api: "v2",
    database: "d",
    bucket: "b",
  });
  assert.equal(
    bare.url,
    "http://[::1]:1/api/v2/write?org=&bucket=b&precision=ms",
  );
  assert.deepEqual(bare.headers, {
    "Content-Type": "text/plain; charset=utf-8",
  });
});

Deno.test("tsdbTarget() encodes a v2 org and bucket with %20 and %26, and logs the URL it requests", () => {
  const target = tsdbTarget({
    host: "http://127.0.0.1:8086/influx",
    api: "v2",
    database: "home",
    org: "my org",
    bucket: "a&b c+d",
    token: "t0k",
  });
  assert.equal(
    target.url,
    "http://127.0.0.1:8086/influx/api/v2/write?org=my%20org&bucket=a%26b%20c%2Bd&precision=ms",
  );
  assert.equal(target.label, target.url);
  const query = new URL(target.url).searchParams;
  assert.deepEqual([...query], [
    ["org", "my org"],
    ["bucket", "a&b c+d"],
    ["precision", "ms"],
  ]);
});

Deno.test("tsdbTarget() keeps the v2 token and host credentials out of the URL and label", () => {
  const token = "s3cr&t tok/en==";
  const target = tsdbTarget({
    host: "https://pi:p%40ss@tsdb.example.com:8443",
    api: "v2",
    database: "home",
    org: "o",
    token,
  });
  assert.equal(target.headers.Authorization, `Token ${token}`);
  assert.equal(
    target.label,
    "https://tsdb.example.com:8443/api/v2/write?org=o&bucket=home&precision=ms",
  );
  for (const secret of [token, encodeURIComponent(token), "s3cr", "p%40ss"]) {
    assert.ok(!target.label.includes(secret), secret);
    assert.ok(!target.url.includes(secret), secret);
  }
});

Deno.test("tsdbTarget() moves credentials of a host URL into a header", () => {
  const target = v1(tsdbTarget({
    host: "https://pi:p%40ss@tsdb.example.com:8443",
    port: 8086,
    api: "v1",
    database: "home",
  }));
  assert.equal(
    target.url,
    "https://tsdb.example.com:8443/write?db=home&precision=ms",
  );
  assert.equal(target.headers.Authorization, `Basic ${btoa("pi:p@ss")}`);
  assert.ok(!target.label.includes("p@ss") && !target.label.includes("p%40ss"));
});

Deno.test("tsdbTarget() keeps a port written in the host", () => {
  const url = (host: string) =>
    tsdbTarget({ host, port: 8086, api: "v1", database: "d" }).label;
  assert.equal(
    url("influx:9999"),
    "http://influx:9999/write?db=d&precision=ms",
  );
  assert.equal(url("fe80::1"), "http://[fe80::1]:8086/write?db=d&precision=ms");
  assert.equal(url("[::1]:7"), "http://[::1]:7/write?db=d&precision=ms");
});

Deno.test("tsdbTarget() applies a set port to a URL that names none; a port in the URL wins", () => {
  const url = (host: string, port?: number) =>
    tsdbTarget({ host, port, api: "v1", database: "d" }).label;
  const path = "/write?db=d&precision=ms";
  // TSDB_PORT set: it applies to a URL without a port of its own.
  assert.equal(url("http://127.0.0.1", 43428), `http://127.0.0.1:43428${path}`);
  assert.equal(url("http://[::1]/", 7), `http://[::1]:7${path}`);
  assert.equal(url("https://h:", 8443), `https://h:8443${path}`);
  assert.equal(
    url("https://u:p%40ss@h/influx", 8443),
    `https://h:8443/influx/write?db=d&precision=ms`,
  );
  // A port written in the URL wins, even the scheme's own (elided by URL).
  assert.equal(url("https://h:443", 8086), `https://h${path}`);
  assert.equal(url("http://h:80/", 8086), `http://h${path}`);
  assert.equal(url("http://[::1]:9", 7), `http://[::1]:9${path}`);
  assert.equal(url("https://u:p:x@h:8443", 1), `https://h:8443${path}`);
  // TSDB_PORT unset: a URL keeps its scheme's port, a bare host gets 8086.
  assert.equal(url("http://127.0.0.1"), `http://127.0.0.1${path}`);
  assert.equal(url("influx"), `http://influx:8086${path}`);
  assert.equal(url("influx:9999", 1), `http://influx:9999${path}`);
  assert.equal(url("influx", 1), `http://influx:1${path}`);
  const cloud = tsdbTarget({
    host: "https://us-west-2-1.aws.cloud2.influxdata.com",
    api: "v2",
    database: "home",
    org: "o",
  });
  assert.equal(
    cloud.url,
    "https://us-west-2-1.aws.cloud2.influxdata.com/api/v2/write?org=o&bucket=home&precision=ms",
  );
});
