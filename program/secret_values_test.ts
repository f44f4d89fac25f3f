import assert from "node:assert/strict";
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
