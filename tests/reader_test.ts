import assert from "node:assert/strict";
import { linuxHasNoAdapter } from "../drivers/ble/_adapter_state.ts";
import { startMain } from "./_test_helpers.ts";

const ADDRESS = "AA:BB:CC:DD:EE:FF";

Deno.test("reader without an address prints the usage line and exits with 2", async () => {
  const reader = startMain(["reader"]);
  assert.equal(await reader.exited(), 2);
  assert.deepEqual(reader.stdout, []);
  assert.ok(
    reader.stderr.includes("Usage: deno task start reader <address>"),
    reader.stderr.join("\n"),
  );
});

Deno.test("reader with a malformed address says so and exits with 2", async () => {
  const reader = startMain(["reader", "kitchen"]);
  assert.equal(await reader.exited(), 2);
  assert.deepEqual(reader.stdout, []);
  assert.deepEqual(reader.stderr, [
    'Invalid address "kitchen": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF',
    "Usage: deno task start reader <address>",
  ]);
});

Deno.test("reader takes one argument and validates READER_TIMEOUT_MS", async () => {
  const extra = startMain(["reader", ADDRESS, "more"]);
  assert.equal(await extra.exited(), 2);
  assert.match(
    extra.stderr.join("\n"),
    /Unknown role "more", or an argument too many: reader takes at most 1 argument/,
  );
  const timeout = startMain(["reader", ADDRESS], {
    env: { READER_TIMEOUT_MS: "soon" },
  });
  assert.equal(await timeout.exited(), 2);
  assert.match(
    timeout.stderr.join("\n"),
    /reader: Invalid READER_TIMEOUT_MS "soon"/,
  );
});

Deno.test("reader ends with a clear outcome within its time-out when no thermometer responds", async () => {
  const started = Date.now();
  const reader = startMain(["reader", ADDRESS], {
    env: { READER_TIMEOUT_MS: "3000", LOG_LEVEL: "DEBUG" },
  });
  const code = await reader.exited();
  const elapsed = Date.now() - started;
  // No reading means nothing on stdout: not even the Bluetooth library's warnings.
  assert.deepEqual(reader.stdout, []);
  const errors = reader.stderr.filter((line) => line.includes("[ERROR]"));
  if (code === 1) {
    // No adapter (this machine, CI): one clear ERROR line, long before the time-out.
    assert.equal(errors.length, 1, reader.stderr.join("\n"));
    assert.match(
      errors[0]!,
      /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[ERROR\] Cannot read the thermometer AA:BB:CC:DD:EE:FF: Bluetooth is unavailable: .+ \(adapter state "\w+"\)$/,
    );
  } else {
    // An adapter but no such thermometer: silent end after the time-out.
    assert.equal(code, 0, reader.stderr.join("\n"));
    assert.deepEqual(errors, []);
    assert.ok(elapsed >= 3000, `ended after ${elapsed} ms`);
    assert.ok(
      reader.stderr.some((line) =>
        line.includes("No reading from AA:BB:CC:DD:EE:FF within 3000 ms")
      ),
      reader.stderr.join("\n"),
    );
  }
});

Deno.test({
  name:
    "reader on a machine without a Bluetooth adapter says so, not that it is powered off",
  ignore: !(await linuxHasNoAdapter("/sys/class/bluetooth")),
  async fn() {
    const reader = startMain(["reader", ADDRESS]);
    assert.equal(await reader.exited(), 1);
    assert.deepEqual(reader.stdout, []);
    const errors = reader.stderr.filter((line) => line.includes("[ERROR]"));
    assert.equal(errors.length, 1, reader.stderr.join("\n"));
    assert.match(
      errors[0]!,
      /\[ERROR\] Cannot read the thermometer AA:BB:CC:DD:EE:FF: Bluetooth is unavailable: no Bluetooth adapter found in \/sys\/class\/bluetooth \(adapter state "unsupported"\)$/,
    );
  },
});
