import assert from "node:assert/strict";
import { custom, optional } from "../lib/settings.ts";
import { port, text } from "../lib/setting_kinds.ts";
import {
  envExample,
  SETTINGS_BEGIN,
  SETTINGS_END,
  settingsBlock,
  settingsTable,
  withSettingsTable,
} from "./settings_docs.ts";

const schema = {
  DEMO_PORT: port({ description: "Port to listen on", default: 8001 }),
  DEMO_CRON: text({
    description: "Cron expression | with *stars* and <chip> of DEMO_PORT",
    default: "*/5 * * * *",
  }),
  DEMO_TOKEN: optional(text({ description: "Token", secret: true })),
};

Deno.test("settingsTable() lists name, default and meaning, escaped for Markdown", () => {
  assert.equal(
    settingsTable(schema),
    [
      "| Setting      | Default       | Meaning                                                       |",
      "| ------------ | ------------- | ------------------------------------------------------------- |",
      "| `DEMO_PORT`  | `8001`        | Port to listen on                                             |",
      "| `DEMO_CRON`  | `*/5 * * * *` | Cron expression \\| with \\*stars\\* and \\<chip\\> of `DEMO_PORT` |",
      "| `DEMO_TOKEN` | – (secret)    | Token                                                         |",
    ].join("\n"),
  );
});

Deno.test("withSettingsTable() replaces only what lies between the markers", async (t) => {
  const page =
    `# Page\n\n${SETTINGS_BEGIN}\nold table\n${SETTINGS_END}\n\nMore text.\n`;
  const updated = withSettingsTable(page, "| new |");
  assert.equal(
    updated,
    `# Page\n\n${SETTINGS_BEGIN}\n\n| new |\n\n${SETTINGS_END}\n\nMore text.\n`,
  );
  assert.equal(settingsBlock(updated), "| new |");
  assert.equal(withSettingsTable(updated, "| new |"), updated);
  for (
    const broken of [
      "# No markers\n",
      `${SETTINGS_END}\n${SETTINGS_BEGIN}\n`,
      `${SETTINGS_BEGIN}\n${SETTINGS_END}\n${SETTINGS_BEGIN}\n${SETTINGS_END}\n`,
    ]
  ) {
    await t.step(JSON.stringify(broken), () => {
      assert.throws(() => withSettingsTable(broken, "x"), /settings:begin/);
    });
  }
});

Deno.test("envExample() writes defaults, quotes values with spaces and comments out the rest", () => {
  const required = custom({ description: "Needed" }, (raw) => raw);
  const text = envExample([{
    name: "demo",
    settings: { ...schema, DEMO_NEEDED: required },
  }]);
  const body = text.slice(text.indexOf("# --- demo"));
  assert.equal(
    body,
    [
      "# --- demo -----------------------------------------------------------------------------",
      "# Port to listen on",
      "DEMO_PORT=8001",
      "# Cron expression | with *stars* and <chip> of DEMO_PORT",
      'DEMO_CRON="*/5 * * * *"',
      "# Token (secret)",
      "# DEMO_TOKEN=",
      "# Needed (required)",
      "# DEMO_NEEDED=",
      "",
    ].join("\n"),
  );
});

Deno.test("settingsTable() and envExample() list a role's variable patterns after its settings, without a default", () => {
  const settings = { DEMO_PORT: schema.DEMO_PORT };
  const patterns = { "DEMO_<NAME>_KEY": "Key | of route <NAME>" };
  assert.equal(
    settingsTable(settings, patterns),
    [
      "| Setting           | Default | Meaning                  |",
      "| ----------------- | ------- | ------------------------ |",
      "| `DEMO_PORT`       | `8001`  | Port to listen on        |",
      "| `DEMO_<NAME>_KEY` | –       | Key \\| of route \\<NAME\\> |",
    ].join("\n"),
  );
  const text = envExample([{ name: "demo", settings, patterns }]);
  assert.equal(
    text.slice(text.indexOf("DEMO_PORT=")),
    [
      "DEMO_PORT=8001",
      "# Key | of route <NAME>",
      "# DEMO_<NAME>_KEY=",
      "",
    ].join("\n"),
  );
});
