import assert from "node:assert/strict";
import { optional, readSettings } from "../../lib/settings.ts";
import {
  parseTargetConfig,
  targetConfigSetting,
  targetUrlsSetting,
} from "./target_settings.ts";

Deno.test("parseTargetConfig() reads [tag[,tag]=]URL lines, comments and blanks", () => {
  assert.deepEqual(
    parseTargetConfig(
      "\uFEFF# home lab\r\n\nntfy://h/a\n  home, door = gotify://h/T\n; other comment\n=json://h\nwork family=pbul://o.x\n",
    ),
    [
      { line: 3, url: "ntfy://h/a", tags: [] },
      { line: 4, url: "gotify://h/T", tags: ["home", "door"] },
      { line: 6, url: "json://h", tags: [] },
      { line: 7, url: "pbul://o.x", tags: ["work", "family"] },
    ],
  );
});

Deno.test("parseTargetConfig() names a bad line without quoting it", () => {
  assert.throws(
    () => parseTargetConfig("ntfy://h/a\nnot a url o.s3cret\n"),
    (error: Error) =>
      error.message ===
        "line 2 is not [tag[,tag]=]URL, a # comment or blank" &&
      !error.message.includes("s3cret"),
  );
  assert.throws(
    () => parseTargetConfig("include http://x/cfg"),
    /line 1: include is not supported/,
  );
});

Deno.test("targetUrlsSetting() reads every URL and reports every bad one, masked", () => {
  const schema = {
    NOTIFIER_URLS: optional(targetUrlsSetting({ description: "URLs" })),
  };
  const good = readSettings(schema, {
    NOTIFIER_URLS: "ntfy://h/a,\ngotify://h/T0k",
  });
  assert.deepEqual(
    good.values.NOTIFIER_URLS?.map((t) => t.target.display),
    ["ntfy://h/a", "gotify://h/****"],
  );
  const bad = readSettings(schema, {
    NOTIFIER_URLS: "ntfy://h/a foo://S3cret gotify://h",
  });
  assert.deepEqual(bad.problems, [
    'Invalid NOTIFIER_URLS: "foo://****": unknown scheme "foo": use one of pbul, ntfy, ntfys, gotify, gotifys, pover, tgram, discord, json, jsons; "gotify://****": expected gotify://host[:port][/path]/TOKEN',
  ]);
});

Deno.test("targetConfigSetting() reads the file's tagged targets and names bad lines", () => {
  const files: Record<string, string> = {
    "/cfg/ok": "# targets\nhome=ntfy://h/a\nntfy://h/b\n",
    "/cfg/bad": "ntfy://h/a\nhome=gotify://h\n",
    "/cfg/empty": "# nothing\n",
  };
  const schema = {
    NOTIFIER_CONFIG: optional(targetConfigSetting({
      description: "Config",
      readTextFile: (path) => {
        const content = files[path];
        if (content === undefined) throw new Error(`No such file: ${path}`);
        return content;
      },
    })),
  };
  const ok = readSettings(schema, { NOTIFIER_CONFIG: "/cfg/ok" });
  assert.deepEqual(
    ok.values.NOTIFIER_CONFIG?.map((t) => [t.target.display, [...t.tags]]),
    [["ntfy://h/a", ["home"]], ["ntfy://h/b", []]],
  );
  assert.deepEqual(
    readSettings(schema, { NOTIFIER_CONFIG: "/cfg/bad" }).problems,
    [
      'Invalid NOTIFIER_CONFIG "/cfg/bad": line 2: "gotify://****": expected gotify://host[:port][/path]/TOKEN',
    ],
  );
  assert.deepEqual(
    readSettings(schema, { NOTIFIER_CONFIG: "/cfg/empty" }).problems,
    [
      'Invalid NOTIFIER_CONFIG "/cfg/empty": the file holds no URL: write one [tag[,tag]=]URL a line',
    ],
  );
  assert.deepEqual(
    readSettings(schema, { NOTIFIER_CONFIG: "/cfg/none" }).problems,
    [
      'Invalid NOTIFIER_CONFIG "/cfg/none": cannot read the file: No such file: /cfg/none',
    ],
  );
});

Deno.test("targetConfigSetting() reads a real file, and refuses a device or a huge file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "notifier-config-" });
  try {
    await Deno.writeTextFile(`${dir}/ok.txt`, "home=ntfy://h/a\n");
    await Deno.writeTextFile(`${dir}/huge.txt`, "#".repeat(2 * 1024 * 1024));
    const schema = {
      NOTIFIER_CONFIG: optional(targetConfigSetting({ description: "Config" })),
    };
    const ok = readSettings(schema, { NOTIFIER_CONFIG: `${dir}/ok.txt` });
    assert.equal(ok.values.NOTIFIER_CONFIG?.length, 1);
    assert.deepEqual(
      readSettings(schema, { NOTIFIER_CONFIG: "/dev/zero" }).problems,
      [
        'Invalid NOTIFIER_CONFIG "/dev/zero": cannot read the file: not a regular file',
      ],
    );
    assert.deepEqual(
      readSettings(schema, { NOTIFIER_CONFIG: `${dir}/huge.txt` }).problems,
      [
        `Invalid NOTIFIER_CONFIG "${dir}/huge.txt": cannot read the file: 2097152 bytes, the limit is 1048576: is this the right file?`,
      ],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
