import assert from "node:assert/strict";
import { optional, parseSettings, SettingsError } from "../../lib/settings.ts";
import { tokenFileSetting, tokenFromFile } from "./token_file_setting.ts";

Deno.test("tokenFromFile() reads a bare token, trimmed", () => {
  assert.equal(tokenFromFile("o.abc123\n"), "o.abc123");
  assert.equal(tokenFromFile("  \n\to.abc123  \r\n"), "o.abc123");
});

Deno.test("tokenFromFile() reads the token member of a JSON file", () => {
  assert.equal(tokenFromFile('{"token": "o.a"}'), "o.a");
  assert.equal(tokenFromFile('{"access_token": " o.b "}\n'), "o.b");
  assert.equal(tokenFromFile('{"accessToken": "o.c", "other": 1}'), "o.c");
});

Deno.test("tokenFromFile() reads the value of a NAME=token line", () => {
  assert.equal(tokenFromFile("PUSHBULLET_TOKEN=o.env\n"), "o.env");
  assert.equal(tokenFromFile("export PUSHBULLET_TOKEN=o.sh\n"), "o.sh");
  assert.equal(tokenFromFile('access_token: "o.yaml"'), "o.yaml");
  assert.equal(
    tokenFromFile("# Pushbullet\r\n[pushbullet]\r\napi_key = 'o.ini'\r\n"),
    "o.ini",
  );
  assert.equal(tokenFromFile("device=phone\ntoken=o.second"), "o.second");
});

Deno.test("tokenFromFile() skips comment lines and a trailing comment", () => {
  assert.equal(
    tokenFromFile("# my Pushbullet token\no.commented\n"),
    "o.commented",
  );
  assert.equal(tokenFromFile("; ini comment\r\no.semi"), "o.semi");
  assert.equal(
    tokenFromFile("API_KEY=o.apikey # from the web site"),
    "o.apikey",
  );
  assert.equal(tokenFromFile("token='o.#hash' # kept in quotes"), "o.#hash");
  assert.throws(() => tokenFromFile("# only a comment\n"), /file is empty/);
});

Deno.test("tokenFromFile() rejects a token an HTTP header cannot carry", () => {
  for (const content of ["o.pässwörd", "token=ключ"]) {
    assert.throws(
      () => tokenFromFile(content),
      (error: Error) =>
        /printable ASCII/.test(error.message) &&
        !error.message.includes(content),
    );
  }
});

Deno.test("tokenFromFile() appends the hint when the file holds no token", () => {
  assert.throws(
    () => tokenFromFile(" \n", "set X"),
    /^Error: the file is empty: set X$/,
  );
  assert.throws(
    () => tokenFromFile('{"token": " "}', "set X"),
    /string member: set X$/,
  );
});

Deno.test("tokenFromFile() rejects files without a token, never quoting them", () => {
  for (
    const content of [
      "",
      " \n ",
      "{not json o.secret",
      '{"key": "o.secret"}',
      '{"token": ""}',
      "user = o.secret",
      "PUSHBULLET_TOKEN=",
      'token: ""',
    ]
  ) {
    assert.throws(
      () => tokenFromFile(content),
      (error: Error) => !error.message.includes("o.secret"),
      JSON.stringify(content),
    );
  }
});

Deno.test("tokenFileSetting() reports problems naming the file", async (t) => {
  const files: Record<string, string> = {
    "/etc/push/token": "o.abc\n",
    "/etc/push/empty": "\n",
  };
  const schema = {
    PUSHBULLET_CONFIG: optional(tokenFileSetting({
      description: "Token file",
      readTextFile: (path) => {
        const content = files[path];
        if (content === undefined) {
          throw new Deno.errors.NotFound(`No such file: ${path}`);
        }
        return content;
      },
    })),
  };
  const problems = (env: Record<string, string>) => {
    try {
      parseSettings(schema, env);
    } catch (error) {
      if (error instanceof SettingsError) return error.problems;
      throw error;
    }
    return [];
  };

  await t.step("reads the token", () => {
    assert.deepEqual(
      parseSettings(schema, { PUSHBULLET_CONFIG: "/etc/push/token" })
        .PUSHBULLET_CONFIG,
      { path: "/etc/push/token", token: "o.abc" },
    );
  });

  await t.step("unset reads as undefined", () => {
    assert.equal(parseSettings(schema, {}).PUSHBULLET_CONFIG, undefined);
  });

  await t.step("an empty file is a problem", () => {
    assert.deepEqual(problems({ PUSHBULLET_CONFIG: "/etc/push/empty" }), [
      'Invalid PUSHBULLET_CONFIG "/etc/push/empty": the file is empty: write the token in it',
    ]);
  });

  await t.step("a file without a token names the alternative setting", () => {
    const withAlternative = {
      PUSHBULLET_CONFIG: optional(tokenFileSetting({
        description: "Token file",
        alternative: "PUSHBULLET_TOKEN",
        readTextFile: () => "\n",
      })),
    };
    assert.throws(
      () => parseSettings(withAlternative, { PUSHBULLET_CONFIG: "/etc/x" }),
      (error: SettingsError) => {
        assert.deepEqual(error.problems, [
          'Invalid PUSHBULLET_CONFIG "/etc/x": the file is empty: write the token in it or set PUSHBULLET_TOKEN',
        ]);
        return true;
      },
    );
  });

  await t.step("a missing file is a problem", () => {
    assert.deepEqual(problems({ PUSHBULLET_CONFIG: "/nowhere" }), [
      'Invalid PUSHBULLET_CONFIG "/nowhere": cannot read the file: No such file: /nowhere',
    ]);
  });
});

Deno.test("tokenFileSetting() reads a real file by default", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, "  o.real \n");
    const setting = tokenFileSetting({ description: "Token file" });
    assert.deepEqual(setting.read(path), { path, token: "o.real" });
  } finally {
    await Deno.remove(path);
  }
});
