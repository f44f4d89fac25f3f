import assert from "node:assert/strict";
import { escapeProblem, PLAIN_PATH } from "./_escape_problem.ts";
import { resolveTarget } from "./resolve_target.ts";
import { parseRoutes } from "./routes.ts";

const routes = parseRoutes(
  "api=https://upstream.example/base,apix=http://other.example:8080/x/,root=http://root.example",
);
const host = "http://proxy.local:8002";

function targetOf(path: string): string | undefined {
  const resolution = resolveTarget(routes, host + path);
  return resolution.kind === "target" ? resolution.url : undefined;
}

Deno.test("resolveTarget() joins base URL, rest of path and query", async (t) => {
  const cases: [string, string][] = [
    ["/api/users", "https://upstream.example/base/users"],
    [
      "/api/users/7?x=1&y=%2F..",
      "https://upstream.example/base/users/7?x=1&y=%2F..",
    ],
    ["/api", "https://upstream.example/base"],
    ["/api/", "https://upstream.example/base/"],
    ["/api?q=1", "https://upstream.example/base?q=1"],
    ["/api/a/api/b", "https://upstream.example/base/a/api/b"],
    ["/api/.well-known/x", "https://upstream.example/base/.well-known/x"],
    ["/api/...", "https://upstream.example/base/..."],
    ["/api/a%20b/%C3%A9", "https://upstream.example/base/a%20b/%C3%A9"],
    ["/api/caf%E9", "https://upstream.example/base/caf%E9"],
    ["/api/%E0%A4%85", "https://upstream.example/base/%E0%A4%85"],
    [
      "/api/q?email=a@b.example&p=../x",
      "https://upstream.example/base/q?email=a@b.example&p=../x",
    ],
    ["/api/x#fragment", "https://upstream.example/base/x"],
    ["/apix/y", "http://other.example:8080/x/y"],
    ["/apix", "http://other.example:8080/x/"],
    ["/apix?q=1", "http://other.example:8080/x/?q=1"],
    ["/root", "http://root.example/"],
    ["/root/a", "http://root.example/a"],
  ];
  for (const [path, expected] of cases) {
    await t.step(`${path} -> ${expected}`, () => {
      assert.equal(targetOf(path), expected);
    });
  }
});

Deno.test("resolveTarget() consults every registration, not only the first", () => {
  const resolution = resolveTarget(routes, `${host}/root/z`);
  assert.equal(resolution.kind, "target");
  assert.equal(resolution.kind === "target" && resolution.route.name, "root");
});

Deno.test("resolveTarget() uses only the path of an absolute-form URL", () => {
  const origin = resolveTarget(routes, "/api/a?b");
  assert.equal(
    origin.kind === "target" && origin.url,
    "https://upstream.example/base/a?b",
  );
  // An absolute-form request line names another host: only its path counts.
  const absolute = resolveTarget(routes, "http://evil.example/api/a");
  assert.equal(
    absolute.kind === "target" && absolute.url,
    "https://upstream.example/base/a",
  );
  const bare = resolveTarget(routes, "http://evil.example");
  assert.deepEqual(bare, { kind: "unmatched" });
});

Deno.test("resolveTarget() matches whole first segments only", async (t) => {
  for (
    const path of [
      "/",
      "/apiz/users",
      "/ap",
      "/API/users",
      "/%61pi/users",
      "/api@evil.example/x",
      "/api.evil.example/x",
      "/api;x/y",
      "//api/users",
      "/users/api/x",
      "",
      "*",
    ]
  ) {
    await t.step(JSON.stringify(path), () => {
      const url = path.startsWith("/") ? host + path : path;
      assert.deepEqual(resolveTarget(routes, url), { kind: "unmatched" });
    });
  }
});

Deno.test("resolveTarget() refuses every path that could leave the base", async (t) => {
  const hostile: [string, RegExp][] = [
    ["/api/..", /\. or \.\. segment/],
    ["/api/../secret", /\. or \.\. segment/],
    ["/api/a/../../secret", /\. or \.\. segment/],
    ["/api/./x", /\. or \.\. segment/],
    ["/api/x/.", /\. or \.\. segment/],
    ["/api/%2e%2e/secret", /\. or \.\. segment/],
    ["/api/%2E%2E/secret", /\. or \.\. segment/],
    ["/api/.%2e/secret", /\. or \.\. segment/],
    ["/api/%2e./secret", /\. or \.\. segment/],
    ["/api/%2e", /\. or \.\. segment/],
    ["/api/%252e%252e/secret", /\. or \.\. segment/],
    ["/api/%25252e%25252e/secret", /\. or \.\. segment/],
    ["/api/..;/secret", /\. or \.\. segment/],
    ["/api/.%09./secret", /\. or \.\. segment/],
    ["/api/..%2fsecret", /encoded slash/],
    ["/api/%2f%2fevil.example/x", /encoded slash/],
    ["/api/a%2Fb", /encoded slash/],
    ["/api/a%252fb", /encoded slash/],
    ["/api/..%5csecret", /encoded slash or backslash/],
    ["/api/%5C", /encoded slash or backslash/],
    ["/api\\..\\secret", /backslash/],
    ["/api%2f..%2fsecret", /encoded slash/],
    ["/api%5C..%5Csecret", /encoded slash or backslash/],
    ["/api/\\evil.example", /backslash/],
    ["/api/..\\secret", /backslash/],
    ["/api/@evil.example/x", /an @/],
    ["/api/%40evil.example", /an @/],
    ["/api/user:pass@evil.example", /an @/],
    ["//api//evil.example/x", /./],
    ["/api//evil.example/x", /empty segment/],
    ["/api/a//b", /empty segment/],
    ["/api//", /empty segment/],
    ["/api/%zz", /malformed percent-encoding/],
    ["/api/%2", /malformed percent-encoding/],
    ["/api/%", /malformed percent-encoding/],
    ["/api/..%00/x", /NUL byte/],
    ["/api/x%00.json", /NUL byte/],
    ["/api/%2500", /NUL byte/],
    ["/api/%c0%ae%c0%ae/x", /overlong or invalid UTF-8/],
    ["/api/%C0%AF", /overlong or invalid UTF-8/],
    ["/api/%e0%80%ae", /overlong or invalid UTF-8/],
    ["/api/%f0%80%80%ae", /overlong or invalid UTF-8/],
    ["/api/%25c0%25ae", /overlong or invalid UTF-8/],
    ["/api/%f8%80%80%80%ae", /invalid UTF-8/],
    ["/api/%fc%80%80%80%80%ae%fc%80%80%80%80%ae/x", /invalid UTF-8/],
  ];
  for (const [path, reason] of hostile) {
    await t.step(JSON.stringify(path), () => {
      const resolution = resolveTarget(routes, host + path);
      if (path.startsWith("//")) {
        // The first segment is empty: no registration is even selected.
        assert.deepEqual(resolution, { kind: "unmatched" });
        return;
      }
      assert.equal(resolution.kind, "rejected", `${path} was not rejected`);
      assert.match(
        resolution.kind === "rejected" ? resolution.reason : "",
        reason,
      );
      assert.equal(
        resolution.kind === "rejected" && resolution.path,
        path.split("#")[0],
      );
    });
  }
});

Deno.test("resolveTarget() rejects, for a root base too, what would change the host", () => {
  for (
    const path of ["/root//evil.example", "/root/@evil.example", "/root/%2e%2e"]
  ) {
    assert.equal(resolveTarget(routes, host + path).kind, "rejected", path);
  }
});

Deno.test("resolveTarget() parses the target once with the query addQuery makes", () => {
  const seen: [string, string][] = [];
  const resolution = resolveTarget(
    routes,
    `${host}/api/users?page=2`,
    (route, query) => {
      seen.push([route.name, query]);
      return `${query}&key=k`;
    },
  );
  assert.deepEqual(seen, [["api", "?page=2"]]);
  assert.equal(resolution.kind, "target");
  if (resolution.kind !== "target") return;
  assert.equal(
    resolution.url,
    "https://upstream.example/base/users?page=2&key=k",
  );
  assert.equal(resolution.parsed.href, resolution.url);
  assert.equal(resolution.parsed.search, "?page=2&key=k");
});

/**
 * Rests of a path (after the route's name) for the plain-path shortcut: plain ones,
 * and hostile ones (`.`/`..` raw and percent-encoded up to four layers, encoded and
 * raw slashes and backslashes, `@`, `//`, NUL, overlong UTF-8, malformed `%`), in
 * one, two and three segments, with and without a trailing slash. No `?` or `#`:
 * they would end the path.
 */
function hostileCorpus(): string[] {
  const plain = [
    "a",
    "users",
    "v1",
    "a.b",
    "a..b",
    "x.",
    "_x",
    "~u",
    "-",
    "...",
  ];
  // "." as itself or percent-encoded in one to four layers (four is past the checks').
  const dots = [".", "%2e", "%2E", "%252e", "%25252E", "%2525252e"];
  const dotted = [
    ...dots,
    ...dots.flatMap((first) => dots.map((second) => first + second)),
  ];
  const hostile = [
    ...dotted,
    "..;",
    "..;x",
    ".;",
    "%2e%2e;x",
    ".\t.",
    "\t..",
    ".\n",
    "%c0%ae",
    "%C0%AE%c0%ae",
    "%e0%80%ae",
    "%f0%80%80%ae",
    "%25c0%25ae",
    "%c1%9c",
    "%ff",
    "%f5",
    "%2f",
    "%2F",
    "%5c",
    "%5C",
    "%252f",
    "%25252f",
    "%25%32%66",
    "\\",
    "a\\..",
    "%255c",
    "@",
    "%40",
    "%2540",
    "a@b",
    "",
    "\0",
    "%00",
    "%2500",
    "%zz",
    "%",
    "%2",
    "%g0",
    "%25zz",
    "%25",
    "a%2",
    "é",
    "%c3%a9",
    "%e9",
  ];
  // Every ASCII character (and one beyond) alone, around a letter, after a dot.
  const characters: string[] = [];
  for (let code = 0; code < 0x80; code++) {
    const c = String.fromCharCode(code);
    if (c === "?" || c === "#") continue;
    characters.push(c, `a${c}`, `${c}a`, `.${c}`, `a${c}b`);
  }
  characters.push("é", "a\u00a0b", "\u2024\u2024");
  const core = [
    ...plain,
    ".",
    "..",
    "%2e%2e",
    "%252e%252e",
    "%2f",
    "\\",
    "",
    "@",
    "%00",
    "%c0%ae",
    "%zz",
  ];
  const segmentLists: string[][] = [
    ...[...plain, ...hostile, ...characters].map((one) => [one]),
    ...[...plain, ...hostile].flatMap((one) =>
      [...plain, ...hostile].map((two) => [one, two])
    ),
    ...characters.flatMap((one) => plain.map((two) => [two, one])),
    ...core.flatMap((one) =>
      core.flatMap((two) => core.map((three) => [one, two, three]))
    ),
  ];
  return [
    "",
    "/",
    ...segmentLists.flatMap((segments) => {
      const path = `/${segments.join("/")}`;
      return [path, `${path}/`];
    }),
  ];
}

Deno.test("resolveTarget()'s plain-path shortcut accepts nothing its full checks refuse", async (t) => {
  const corpus = hostileCorpus();
  let shortcut = 0;
  let refused = 0;
  await t.step("the shortcut's verdict agrees with the full checks", () => {
    for (const rest of corpus) {
      const problem = escapeProblem(rest);
      if (problem !== undefined) refused++;
      if (!PLAIN_PATH.test(rest)) continue;
      shortcut++;
      assert.equal(
        problem,
        undefined,
        `the shortcut accepts ${
          JSON.stringify(rest)
        }, the full checks refuse it`,
      );
    }
    // Neither side of the corpus is empty: it tries the shortcut on plain paths and
    // the full checks on hostile ones.
    assert.ok(shortcut > 200, `only ${shortcut} plain paths`);
    assert.ok(refused > corpus.length / 2, `only ${refused} refused`);
  });
  await t.step(
    "resolveTarget() rejects every path the full checks refuse",
    () => {
      for (const rest of corpus) {
        const problem = escapeProblem(rest);
        if (problem === undefined) continue;
        const resolution = resolveTarget(routes, `${host}/api${rest}`);
        assert.equal(resolution.kind, "rejected", JSON.stringify(rest));
      }
    },
  );
});
