import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { configureLogging, formatTimestamp } from "./logging.ts";
import { createLog } from "./log.ts";

Deno.test("formatTimestamp() writes DD/MM/YYYY HH:MM:SS in local time", () => {
  assert.equal(
    formatTimestamp(new Date(2026, 10, 1, 9, 5, 3)),
    "01/11/2026 09:05:03",
  );
});

Deno.test("configureLogging() writes the product's line format", async (t) => {
  const lines: string[] = [];
  const write = (line: string) => lines.push(line);

  await t.step(
    "text lines with Python-style level names, threshold applied",
    async () => {
      await configureLogging({ level: "INFO", format: "text", write });
      const log = createLog("test");
      log.debug("hidden");
      log.info('body {"a": 1}');
      log.warn("careful");
      log.error("broken");
      assert.equal(lines.length, 3);
      const pattern =
        /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} \[(INFO|WARNING|ERROR)\] (.*)$/;
      assert.deepEqual(lines.map((l) => pattern.exec(l)?.slice(1)), [
        ["INFO", 'body {"a": 1}'],
        ["WARNING", "careful"],
        ["ERROR", "broken"],
      ]);
    },
  );

  await t.step("a line break in a message cannot start a line", async () => {
    lines.length = 0;
    await configureLogging({ level: "INFO", format: "text", write });
    createLog("test").info(
      "hello\r\n21/11/2026 23:59:59 [ERROR] forged\nthird",
    );
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /\[INFO\] hello\\r\\n21\/11\/2026 23:59:59 \[ERROR\] forged\\nthird$/,
    );
    assert.ok(!/[\r\n]/.test(lines[0]!));
  });

  await t.step("control characters are escaped, tabs kept", async () => {
    lines.length = 0;
    await configureLogging({ level: "INFO", format: "text", write });
    createLog("test").info("\x1b[2Jred\x00\u2028end\tok");
    assert.match(lines[0]!, /\[INFO\] \\u001b\[2Jred\\u0000\\u2028end\tok$/);
  });

  await t.step("json lines", async () => {
    lines.length = 0;
    await configureLogging({ level: "DEBUG", format: "json", write });
    createLog("test").debug("details");
    const record = JSON.parse(lines[0]!);
    assert.equal(record.level, "DEBUG");
    assert.equal(record.message, "details");
    assert.equal(record.logger, "homewire.test");
    assert.ok(!Number.isNaN(Date.parse(record.time)));
  });

  await reset();
});

Deno.test("configureLogging() masks the secrets in every line, text and JSON", async () => {
  const lines: string[] = [];
  const write = (line: string) => lines.push(line);
  const secrets = ["s3cr3t pass", "abc"];
  try {
    for (const format of ["text", "json"] as const) {
      await configureLogging({ level: "INFO", format, write, secrets });
      createLog("test").error(
        "failed: s3cr3t pass, http://u:s3cr3t%20pass@h/ abc",
      );
    }
    assert.match(
      lines[0]!,
      /\[ERROR\] failed: \*\*\*\*, http:\/\/u:\*\*\*\*@h\/ abc$/,
    );
    assert.equal(
      JSON.parse(lines[1]!).message,
      "failed: ****, http://u:****@h/ abc",
    );
  } finally {
    await reset();
  }
});
