import assert from "node:assert/strict";
import {
  custom,
  optional,
  parseSettings,
  readSettings,
  refine,
  SettingsError,
} from "./settings.ts";
import {
  boolean,
  choice,
  decimal,
  durationMs,
  integer,
  list,
  port,
  secret,
  text,
  url,
} from "./setting_kinds.ts";

const schema = {
  NAME: text({ description: "A name" }),
  PORT: port({ description: "A port", default: 8001 }),
  COUNT: integer({ description: "A count", default: 10, min: 1, max: 10 }),
  ENDPOINT: url({ description: "Where to post" }),
  TOKEN: secret({ description: "A token" }),
  OPEN: boolean({ description: "Open it", default: true }),
  TIMEOUT: durationMs({ description: "Time-out", default: 30_000 }),
  STATUSES: list({ description: "Statuses", default: [] }),
  MODE: choice(["json", "raw"], { description: "Body mode", default: "json" }),
  RATIO: optional(decimal({ description: "A ratio" })),
};

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    parseSettings(schema, env);
  } catch (error) {
    assert.ok(error instanceof SettingsError);
    return error.problems;
  }
  assert.fail("expected a SettingsError");
}

Deno.test("parseSettings() applies defaults and parses every kind", () => {
  const settings = parseSettings(schema, {
    NAME: "  pi  ",
    ENDPOINT: "http://127.0.0.1:9000/hook",
    TOKEN: "s3cret",
    OPEN: "FALSE",
    TIMEOUT: "1.5s",
    STATUSES: " 429, 500-599 ,,",
    MODE: "RAW",
    RATIO: "0.25",
  });
  assert.deepEqual({ ...settings }, {
    NAME: "pi",
    PORT: 8001,
    COUNT: 10,
    ENDPOINT: "http://127.0.0.1:9000/hook",
    TOKEN: "s3cret",
    OPEN: false,
    TIMEOUT: 1500,
    STATUSES: ["429", "500-599"],
    MODE: "raw",
    RATIO: 0.25,
  });
  assert.ok(Object.isFrozen(settings));
});

Deno.test("parseSettings() reports every problem at once, naming each variable", () => {
  const problems = problemsOf({
    PORT: "80a",
    COUNT: "11",
    ENDPOINT: "ftp://x",
    OPEN: "maybe",
    TIMEOUT: "soon",
    MODE: "xml",
    RATIO: "1/2",
  });
  assert.deepEqual(problems, [
    "Missing NAME: A name",
    'Invalid PORT "80a": expected an integer from 0 to 65535',
    'Invalid COUNT "11": expected an integer from 1 to 10',
    'Invalid ENDPOINT "ftp://x": expected an absolute http/https URL',
    "Missing TOKEN: A token",
    'Invalid OPEN "maybe": expected true or false',
    'Invalid TIMEOUT "soon": expected a duration from 0 to 2147483647 ms: a number of milliseconds or a number with ms, s, m or h',
    'Invalid MODE "xml": expected one of json, raw',
    'Invalid RATIO "1/2": expected a number',
  ]);
});

Deno.test("parseSettings() treats an empty value as unset", () => {
  const problems = problemsOf({
    NAME: "   ",
    ENDPOINT: "http://x",
    TOKEN: "t",
  });
  assert.deepEqual(problems, ["Missing NAME: A name"]);
});

Deno.test("parseSettings() never quotes a secret value", () => {
  const strict = {
    KEY: secret({ description: "Key" }),
    N: integer({ description: "n", min: 5 }),
  };
  try {
    parseSettings({
      ...strict,
      KEY: {
        ...strict.KEY,
        read: () => {
          throw new Error("too short");
        },
      },
    }, {
      KEY: "hunter2",
      N: "1",
    });
    assert.fail("expected a SettingsError");
  } catch (error) {
    assert.ok(error instanceof SettingsError);
    assert.deepEqual(error.problems, [
      "Invalid KEY: too short",
      'Invalid N "1": expected an integer of at least 5',
    ]);
    assert.ok(!error.message.includes("hunter2"));
  }
});

Deno.test("optional() reads an unset variable as undefined", () => {
  const settings = parseSettings(
    { P: optional(port({ description: "p" })) },
    {},
  );
  assert.equal(settings.P, undefined);
});

Deno.test("readSettings() keeps the values that parsed next to the problems", () => {
  const reading = readSettings(schema, {
    NAME: "pi",
    PORT: "nope",
    TOKEN: "t",
  });
  assert.equal(reading.values.NAME, "pi");
  assert.equal(reading.values.COUNT, 10);
  assert.equal("PORT" in reading.values, false);
  assert.deepEqual([...reading.failed], ["PORT", "ENDPOINT"]);
  assert.deepEqual(reading.problems, [
    'Invalid PORT "nope": expected an integer from 0 to 65535',
    "Missing ENDPOINT: Where to post",
  ]);
});

Deno.test("custom() and refine() build settings with the house rules", () => {
  const schema = {
    PAIR: custom({ description: "a=b" }, (raw) => {
      const [a, b] = raw.split("=");
      if (!a || !b) throw new Error("expected a=b");
      return { a, b };
    }),
    EVEN: refine(
      integer({ description: "Even", default: 2 }),
      "an even number",
      (n) => n % 2 === 0,
    ),
  };
  assert.deepEqual({ ...parseSettings(schema, { PAIR: "x=y" }) }, {
    PAIR: { a: "x", b: "y" },
    EVEN: 2,
  });
  assert.equal(schema.PAIR.required, true);
  assert.equal(schema.EVEN.defaultText, "2");
  assert.deepEqual(readSettings(schema, { PAIR: "x", EVEN: "3" }).problems, [
    'Invalid PAIR "x": expected a=b',
    'Invalid EVEN "3": expected an even number',
  ]);
  assert.deepEqual(readSettings(schema, {}).problems, ["Missing PAIR: a=b"]);
});

Deno.test("readSettings() refuses a control character in any value, quoting nothing", () => {
  const { problems, failed } = readSettings({
    PORT: port({ description: "Port" }),
    KEY: secret({ description: "Key" }),
  }, { PORT: "80\n81", KEY: "s3cr\x1bt" });
  assert.deepEqual(problems, [
    "Invalid PORT: it holds a control character (a line break?): write the value on one line",
    "Invalid KEY: it holds a control character (a line break?): write the value on one line",
  ]);
  assert.deepEqual([...failed], ["PORT", "KEY"]);
});

Deno.test("readSettings() lets a multiline setting hold line breaks, not other control characters", () => {
  const lines = custom(
    { description: "One item a line", multiline: true },
    (raw) => raw.split(/\r?\n/),
  );
  const { values, problems } = readSettings({ LIST: lines, BAD: lines }, {
    LIST: "a\r\nb\n\tc",
    BAD: "a\nb\x1b",
  });
  assert.deepEqual(values.LIST, ["a", "b", "\tc"]);
  assert.deepEqual(problems, [
    "Invalid BAD: it holds a control character other than a line break or a tab: remove it",
  ]);
});

Deno.test("readSettings() does not quote a value that may hold a password", () => {
  const schema = { ENDPOINT: url({ description: "e" }) };
  for (
    const raw of [
      "https://bob:hunter2@example.com:99999/hook",
      "ftp://bob:hunter2@example.com/x",
      "http://bob:hun/ter@2@example.com:port",
      "bob:hunter2@db:5432/app",
      "x https://bob:hunter2@h:bad",
    ]
  ) {
    assert.deepEqual(readSettings(schema, { ENDPOINT: raw }).problems, [
      "Invalid ENDPOINT (not quoted: it may hold a password): expected an absolute http/https URL",
    ], raw);
  }
  // Without user information, the value is quoted as it is.
  assert.deepEqual(
    readSettings(schema, { ENDPOINT: "https://example.com:99999" }).problems,
    [
      'Invalid ENDPOINT "https://example.com:99999": expected an absolute http/https URL',
    ],
  );
});
