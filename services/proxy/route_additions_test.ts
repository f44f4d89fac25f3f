import assert from "node:assert/strict";
import { readRouteAdditions, routeVariableStem } from "./route_additions.ts";
import { parseRoutes } from "./routes.ts";

const ROUTES = parseRoutes(
  "weather=https://api.example/data,open-data=http://h/v1,local=http://127.0.0.1:1",
);
const SECRET = "s3cr3t-k3y-value";
const noFiles = (path: string): string => {
  throw new Deno.errors.NotFound(path);
};

Deno.test("routeVariableStem() upper-cases and turns - . ~ into _", () => {
  assert.equal(routeVariableStem("open-data"), "OPEN_DATA");
  assert.equal(routeVariableStem("v1.api~x"), "V1_API_X");
});

Deno.test("readRouteAdditions() reads query and headers per route", () => {
  const { additions, problems } = readRouteAdditions(
    {
      PROXY_ROUTE_WEATHER_QUERY: `appid=${SECRET}&units=metric&q=New+York`,
      PROXY_ROUTE_OPEN_DATA_HEADERS:
        `{"X-Api-Key": "${SECRET}", "Accept": "application/json"}`,
      PROXY_ROUTE_LOCAL_QUERY: "",
    },
    ROUTES,
    noFiles,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(additions.get("weather"), {
    query: [["appid", SECRET], ["units", "metric"], ["q", "New York"]],
    headers: [],
  });
  assert.deepEqual(additions.get("open-data"), {
    query: [],
    headers: [["x-api-key", SECRET], ["accept", "application/json"]],
  });
  assert.equal(additions.has("local"), false, "an empty variable is unset");
});

Deno.test("readRouteAdditions() reads the _FILE twins, trimmed", () => {
  const files: Record<string, string> = {
    "/run/secrets/q": `appid=${SECRET}\n`,
    "/run/secrets/h": `{"Authorization": "Bearer ${SECRET}"}\n`,
  };
  const { additions, problems } = readRouteAdditions(
    {
      PROXY_ROUTE_WEATHER_QUERY_FILE: "/run/secrets/q",
      PROXY_ROUTE_WEATHER_HEADERS_FILE: "/run/secrets/h",
    },
    ROUTES,
    (path) => files[path] ?? noFiles(path),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(additions.get("weather"), {
    query: [["appid", SECRET]],
    headers: [["authorization", `Bearer ${SECRET}`]],
  });
});

Deno.test("readRouteAdditions() reports each problem naming the variable, never the value", async (t) => {
  const cases: [Record<string, string>, RegExp, string?][] = [
    [
      {
        PROXY_ROUTE_WEATHER_QUERY: `appid=${SECRET}`,
        PROXY_ROUTE_WEATHER_QUERY_FILE: "/x",
      },
      /^Invalid PROXY_ROUTE_WEATHER_QUERY: PROXY_ROUTE_WEATHER_QUERY_FILE is set too/,
    ],
    [
      { PROXY_ROUTE_WEATHR_QUERY: `appid=${SECRET}` },
      /^Invalid PROXY_ROUTE_WEATHR_QUERY: it names no route of PROXY_ROUTES/,
    ],
    [
      { PROXY_ROUTE_NOPE_HEADERS_FILE: "/x" },
      /^Invalid PROXY_ROUTE_NOPE_HEADERS_FILE: it names no route/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"X-Key": "${SECRET}"` },
      /^Invalid PROXY_ROUTE_WEATHER_HEADERS: it is not valid JSON/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `["${SECRET}"]` },
      /^Invalid PROXY_ROUTE_WEATHER_HEADERS: expected a JSON object/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"X Key ${SECRET}": "v"}` },
      /^Invalid PROXY_ROUTE_WEATHER_HEADERS: the name of header 1 of 1 is not a token/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"A": "b", "X-Key": 12345678}` },
      /^Invalid PROXY_ROUTE_WEATHER_HEADERS: the value of header 2 of 2 is not a string/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"X-Key": "${SECRET}\\r\\nX: y"}` },
      /the value of header 1 of 1 holds a control character/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"Host": "${SECRET}"}` },
      /header 1 of 1 is one the proxy manages itself/,
    ],
    [
      { PROXY_ROUTE_WEATHER_HEADERS: `{"x-key": "a", "X-Key": "${SECRET}"}` },
      /header 2 of 2 repeats an earlier name/,
    ],
    [
      { PROXY_ROUTE_WEATHER_QUERY: `=${SECRET}` },
      /^Invalid PROXY_ROUTE_WEATHER_QUERY: a parameter has no name/,
    ],
    [
      { PROXY_ROUTE_WEATHER_QUERY: `appid=${SECRET}%zz` },
      /^Invalid PROXY_ROUTE_WEATHER_QUERY: a % is not followed by two hex digits/,
    ],
    [
      { PROXY_ROUTE_WEATHER_QUERY: `appid=${SECRET}\nunits=metric` },
      /^Invalid PROXY_ROUTE_WEATHER_QUERY: it holds a control character/,
    ],
    [
      { PROXY_ROUTE_WEATHER_QUERY_FILE: "/missing/file" },
      /^Invalid PROXY_ROUTE_WEATHER_QUERY_FILE: cannot read file "\/missing\/file": it does not exist/,
    ],
  ];
  for (const [env, expected] of cases) {
    await t.step(Object.keys(env).join(" "), () => {
      const { additions, problems } = readRouteAdditions(env, ROUTES, noFiles);
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0]!, expected);
      assert.ok(!problems[0]!.includes(SECRET), String(problems[0]));
      assert.ok(!problems[0]!.includes("s3cr3t"), String(problems[0]));
      assert.equal(additions.size, 0);
    });
  }
  await t.step("two routes that map to one variable", () => {
    const routes = parseRoutes("my-api=http://a,my_api=http://b");
    const { problems } = readRouteAdditions(
      { PROXY_ROUTE_MY_API_QUERY: `k=${SECRET}` },
      routes,
      noFiles,
    );
    assert.deepEqual(problems, [
      'Invalid PROXY_ROUTE_MY_API_QUERY: routes "my-api" and "my_api" both map to it: rename one of them',
    ]);
    // Without such a variable, the two names stay fine, as before.
    assert.deepEqual(readRouteAdditions({}, routes, noFiles).problems, []);
  });
  await t.step("an empty file", () => {
    const { problems } = readRouteAdditions(
      { PROXY_ROUTE_WEATHER_HEADERS_FILE: "/e" },
      ROUTES,
      () => "\n",
    );
    assert.deepEqual(problems, [
      'Invalid PROXY_ROUTE_WEATHER_HEADERS_FILE: file "/e" is empty',
    ]);
  });
  await t.step(
    "a malformed value read from a file names the _FILE variable",
    () => {
      const { problems } = readRouteAdditions(
        { PROXY_ROUTE_WEATHER_HEADERS_FILE: "/h" },
        ROUTES,
        () => `{"X-Key": ${SECRET}}`,
      );
      assert.equal(problems.length, 1);
      assert.match(
        problems[0]!,
        /^Invalid PROXY_ROUTE_WEATHER_HEADERS_FILE: it is not valid JSON/,
      );
      assert.ok(!problems[0]!.includes(SECRET));
    },
  );
});
