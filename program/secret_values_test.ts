import assert from "node:assert/strict";
import { custom } from "../lib/settings.ts";
import { secret, text } from "../lib/setting_kinds.ts";
import { secretValues } from "./secret_values.ts";

Deno.test("secretValues() lists the secret settings' values, a list item by item, longest first", () => {
  const schema = {
    TOKEN: secret({ description: "token" }),
    URLS: secret({ description: "urls", multiline: true }),
    NAME: text({ description: "name" }),
    EMPTY: secret({ description: "unset" }),
  };
  assert.deepEqual(
    secretValues([schema], {
      TOKEN: "t0ken",
      URLS: "pbul://abc\nntfy://h/t",
      NAME: "shown",
    }),
    ["pbul://abc\nntfy://h/t", "pbul://abc", "ntfy://h/t", "t0ken"],
  );
});

Deno.test("secretValues() takes only the credentials of an address", () => {
  const schema = {
    HOST: custom({
      description: "host",
      secret: true,
      secretPart: "credentials",
    }, (raw) => raw),
  };
  assert.deepEqual(secretValues([schema], { HOST: "127.0.0.1" }), []);
  assert.deepEqual(
    secretValues([schema], { HOST: "http://127.0.0.1:8086" }),
    [],
  );
  assert.deepEqual(
    secretValues([schema], { HOST: "https://ada:p%40ss@influx.lan" }),
    ["ada:p%40ss", "p%40ss", "p@ss"],
  );
});

Deno.test("secretValues() masks the content of a file a secretFile setting names", () => {
  const schema = {
    SECRET_FILE: custom(
      { description: "file", secretFile: true },
      (raw) => raw,
    ),
    OTHER_FILE: custom(
      { description: "file", secretFile: true },
      (raw) => raw,
    ),
  };
  const files: Record<string, string> = { "/run/secrets/s": "whsec_abc=\n" };
  const readFile = (path: string) => {
    const text = files[path];
    if (text === undefined) throw new Deno.errors.NotFound(path);
    return text;
  };
  assert.deepEqual(
    secretValues(
      [schema],
      { SECRET_FILE: "/run/secrets/s", OTHER_FILE: "/missing" },
      readFile,
    ),
    ["whsec_abc="],
  );
});
